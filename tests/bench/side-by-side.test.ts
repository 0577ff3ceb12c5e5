import { describe, expect, it } from 'vitest';
import { readOptions } from '../../bench/options.js';
import { seededRandom } from '../../bench/seeded-random.js';
import { turnOrder } from '../../bench/sequential.js';
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

describe('sequential turns', () => {
  it('shuffle every turn, the same way in every run, so that each target follows each other about as often', () => {
    const random = seededRandom(1);
    const follows = new Map<string, number>();
    for (let turn = 0; turn < 3000; turn++) {
      const order = turnOrder(4, random);
      expect([...order].sort()).toEqual([0, 1, 2, 3]);
      for (let k = 1; k < order.length; k++) follows.set(`${order[k - 1]}>${order[k]}`, (follows.get(`${order[k - 1]}>${order[k]}`) ?? 0) + 1);
    }
    // 12 ordered pairs, 3 neighbours per turn: about 750 each.
    expect(follows.size).toBe(12);
    for (const count of follows.values()) expect(Math.abs(count - 750)).toBeLessThan(120);
    expect(turnOrder(5, seededRandom(1))).toEqual(turnOrder(5, seededRandom(1)));
  });
});
