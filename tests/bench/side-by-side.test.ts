import { describe, expect, it } from 'vitest';
import { readOptions } from '../../bench/options.js';
import { formatSideBySide, summarizeSideBySide, type SideBySideRound } from '../../bench/side-by-side.js';

/**
 * The candidate slot's figure against svir-openai when both were under load at the same time:
 * CPU per request over every round (not a mean of per-round ratios), requests/s as the median
 * of each round's own ratio.
 */
const round = (baseCpu: number, baseDone: number, candCpu: number, candDone: number, durationS = 2): SideBySideRound => ({
  cpuUs: { 'svir-openai': baseCpu, 'candidate-openai': candCpu },
  completed: { 'svir-openai': baseDone, 'candidate-openai': candDone },
  durationS,
});

describe('side by side', () => {
  const result = summarizeSideBySide('svir-openai', 'candidate-openai', 32, [round(1_000_000, 1000, 1_200_000, 1000), round(900_000, 1000, 800_000, 1000)]);

  it('divides the CPU time of every round by the requests of every round, per target', () => {
    expect(result.cpuUsPerRequest).toEqual({ 'svir-openai': 950, 'candidate-openai': 1000 });
    expect(result.cpuRatio).toBeCloseTo(1000 / 950, 6);
  });

  it('takes requests/s as the median over rounds, and the ratio as the median of each round’s', () => {
    const r = summarizeSideBySide('svir-openai', 'candidate-openai', 32, [round(1, 1000, 1, 1200), round(1, 600, 1, 600), round(1, 800, 1, 400)]);
    expect(r.requestsPerSec).toEqual({ 'svir-openai': 400, 'candidate-openai': 300 });
    expect(r.requestsPerSecRatio).toBe(1);
  });

  it('prints both figures, the ratio, and each round’s CPU ratio', () => {
    const lines = formatSideBySide(result);
    expect(lines[0]).toBe('candidate-openai beside svir-openai: both under load at the same time (32 connections each, 2 rounds)');
    expect(lines[1]).toContain('svir-openai 950, candidate-openai 1000: candidate-openai ÷ svir-openai 1.053 (rounds: 1.200, 0.889)');
    expect(lines[2]).toContain('svir-openai 500, candidate-openai 500: candidate-openai ÷ svir-openai 1.000');
  });

  it('reads no ratio out of a round where nothing completed', () => {
    const r = summarizeSideBySide('svir-openai', 'candidate-openai', 32, [round(1000, 0, 1000, 0)]);
    expect(r.cpuRatio).toBeNaN();
  });
});

describe('load settings', () => {
  it('pre-rolls every measured run by 1 s, in a quick run too', () => {
    expect(readOptions([], {}).preRollS).toBe(1);
    expect(readOptions(['--quick'], {}).preRollS).toBe(1);
    expect(readOptions(['--pre-roll', '0'], {})).toMatchObject({ preRollS: 0 });
  });
});
