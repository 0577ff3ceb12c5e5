import { describe, expect, it } from 'vitest';
import type { OpenStreamsMeasure } from '../../bench/open-streams.js';
import { readOptions } from '../../bench/options.js';
import {
  BARE_NODE,
  CONTRACT_MINIMUM,
  buildReport,
  describeTargets,
  DIRECT,
  floorBeside,
  floorRows,
  formatReport,
  isSvirTarget,
  PASS_THROUGH,
  PORTKEY,
  SVIR_RESPONSES,
  type LoadSummary,
  type TargetCheck,
} from '../../bench/report.js';
import type { SequentialResult } from '../../bench/sequential.js';

/**
 * The benchmark's verdicts (issue 15): every target and ratio divides by the floor, the
 * fastify + @fastify/http-proxy pass-through, never by the plain node:http one (bare-node) or
 * Portkey, which are measured beside it for comparison and get no verdict.
 */

const options = readOptions([], {});

function load(requestsPerSec: number, p99: number, cpuUs: number): LoadSummary {
  return {
    rounds: [],
    requestsPerSec,
    latencyP50Ms: p99 / 2,
    latencyP99Ms: p99,
    cpuUsPerRequest: cpuUs,
    upstreamCpuUsPerRequest: 50,
    rssAfterLoadBytes: 80e6,
    failures: 0,
  };
}

function seq(ttfbMs: number, cpuUs: number): SequentialResult {
  return { ttfbMedianMs: ttfbMs, ttftMedianMs: ttfbMs, totalMedianMs: ttfbMs + 0.1, cpuUsPerRequest: cpuUs, failures: 0, samples: 200 };
}

function stream(route: 'chat' | 'responses', perStreamKb: number): OpenStreamsMeasure {
  return {
    route,
    streams: 1000,
    maxOpen: 1000,
    idleRssBytes: 60e6,
    peakRssBytes: 60e6 + perStreamKb * 1e6,
    perStreamBytes: perStreamKb * 1e3,
    peakSource: 'vmhwm-reset',
    failed: 0,
    seconds: 17,
    networkRefusals: 0,
  };
}

// The floor is 2,000 req/s at 500 µs; bare-node is twice as lean. svir-openai is within every
// limit against the floor and outside every one against bare-node.
const report = buildReport({
  options,
  versions: { fastify: '5.12.8', '@fastify/http-proxy': '11.6.3', '@portkey-ai/gateway': '1.15.2' },
  networkRefusals: { [PORTKEY]: 0 },
  load: {
    [DIRECT]: load(9000, 8, 90),
    [PASS_THROUGH]: load(2000, 20, 500),
    [BARE_NODE]: load(4000, 10, 250),
    'svir-openai': load(1700, 25, 600),
    'svir-llamacpp': load(1000, 40, 1000),
    [PORTKEY]: load(400, 90, 2500),
  },
  sequential: {
    [DIRECT]: seq(0.3, 60),
    [PASS_THROUGH]: seq(1.0, 900),
    [BARE_NODE]: seq(0.6, 450),
    'svir-openai': seq(1.2, 1100),
    'svir-llamacpp': seq(1.5, 1300),
    [PORTKEY]: seq(27, 3000),
  },
  openStreams: {
    streams: 1000,
    chunkDelayMs: 250,
    chunks: 64,
    targets: {
      [PASS_THROUGH]: stream('chat', 40),
      'svir-openai': stream('chat', 50),
      [SVIR_RESPONSES]: stream('responses', 70),
      [BARE_NODE]: stream('chat', 20),
      [PORTKEY]: stream('chat', 300),
    },
  },
});

function verdict(target: string, subject: string): TargetCheck | undefined {
  return report.targets.find((t) => t.target === target && t.subject === subject);
}

describe('bench report: the floor is the fastify + @fastify/http-proxy pass-through', () => {
  it('says which targets get issue 15 verdicts', () => {
    expect(isSvirTarget('svir-openai')).toBe(true);
    expect(isSvirTarget('svir-llamacpp')).toBe(true);
    expect(isSvirTarget(SVIR_RESPONSES)).toBe(true);
    expect(isSvirTarget('candidate-openai')).toBe(true);
    for (const other of [DIRECT, PASS_THROUGH, BARE_NODE, PORTKEY]) expect(isSvirTarget(other)).toBe(false);
  });

  it('computes every ratio against the floor, for svir and the comparison targets alike', () => {
    expect(report.ratios['svir-openai']?.vsPassThrough).toEqual({
      requestsPerSec: 0.85,
      latencyP50: 1.25,
      latencyP99: 1.25,
      cpuPerRequest: 1.2,
      ttfbMedian: 1.2,
      totalMedian: 1.182,
      ttfbDeltaMs: 0.2,
      cpuPerRequestSequential: 1.222,
    });
    expect(report.ratios[PORTKEY]?.vsPassThrough.requestsPerSec).toBe(0.2);
    expect(report.ratios[PORTKEY]?.vsPassThrough.cpuPerRequest).toBe(5);
    expect(report.ratios[BARE_NODE]?.vsPassThrough.cpuPerRequest).toBe(0.5);
    expect(report.ratios[PASS_THROUGH]).toBeUndefined();
  });

  it('marks each of svir-openai targets met against the floor (they would all miss against bare-node)', () => {
    expect(verdict('requests/s ≥ 0.8 × floor', 'svir-openai')).toMatchObject({ measured: '0.850×', met: true });
    expect(verdict('p99 ≤ 1.3 × floor', 'svir-openai')).toMatchObject({ measured: '1.250×', met: true });
    expect(verdict('CPU/request ≤ 1.3 × floor (load)', 'svir-openai')).toMatchObject({ measured: '1.200×', met: true });
    expect(verdict('CPU/request ≤ 1.3 × floor (sequential)', 'svir-openai')).toMatchObject({ measured: '1.222×', met: true });
    expect(verdict('TTFB ≤ floor + 0.3 ms', 'svir-openai')).toMatchObject({ measured: '+0.200 ms', met: true });
    expect(verdict('memory per open stream ≤ 1.5 × floor', 'svir-openai')).toMatchObject({ measured: '1.250× (50.0 KB)', met: true });
  });

  it('marks a target missed past its limit', () => {
    expect(verdict('requests/s ≥ 0.8 × floor', 'svir-llamacpp')).toMatchObject({ measured: '0.500×', met: false });
    expect(verdict('CPU/request ≤ 1.3 × floor (load)', 'svir-llamacpp')).toMatchObject({ measured: '2.000×', met: false });
    expect(verdict('TTFB ≤ floor + 0.3 ms', 'svir-llamacpp')).toMatchObject({ measured: '+0.500 ms', met: false });
    expect(verdict('memory per open stream ≤ 1.5 × floor', SVIR_RESPONSES)).toMatchObject({ measured: '1.750× (70.0 KB)', met: false });
  });

  it('gives the comparison targets no verdict', () => {
    const subjects = new Set(report.targets.map((t) => t.subject));
    expect(subjects.has(PORTKEY)).toBe(false);
    expect(subjects.has(BARE_NODE)).toBe(false);
    expect(subjects.has(PASS_THROUGH)).toBe(false);
  });

  it('prints every figure beside the floor, with its ratio or difference, Portkey and bare-node included', () => {
    const rows = floorRows(report, ['svir-openai', PORTKEY, BARE_NODE]);
    expect(rows).toEqual([
      ['pass-through (floor)', '2000', '20', '500', '900', '1.000', '40.0'],
      ['svir-openai', '1700 (0.850×)', '25 (1.250×)', '600 (1.200×)', '1100 (1.222×)', '1.200 (+0.200 ms)', '50.0 (1.250×)'],
      [PORTKEY, '400 (0.200×)', '90 (4.500×)', '2500 (5.000×)', '3000 (3.333×)', '27.000 (+26.000 ms)', '300.0 (7.500×)'],
      [BARE_NODE, '4000 (2.000×)', '10 (0.500×)', '250 (0.500×)', '450 (0.500×)', '0.600 (−0.400 ms)', '20.0 (0.500×)'],
    ]);
  });

  it('names the floor and its versions in the printed report, and the refusals of Portkey', () => {
    const text = formatReport(report);
    expect(text).toContain('floor = pass-through: fastify 5.12.8 + @fastify/http-proxy 11.6.3');
    expect(text).toContain('portkey (@portkey-ai/gateway 1.15.2');
    expect(text).toContain('Against the floor');
    expect(text).toContain('Targets of issue 15 for svir, against the floor');
    expect(text).toContain('Kept off the network (connections or lookups beyond loopback refused): portkey 0');
    expect(text).toMatch(/portkey\s+400 \(0\.200×\)/);
    expect(describeTargets({})).toContain('fastify ? + @fastify/http-proxy ?');
  });
});

describe('bench report: the targets that take their sequential turns apart, against the floor of those turns', () => {
  // svir-responses (it shares svir-openai's process) and Portkey (its slow answers would stretch
  // everyone's turns) take their sequential turns apart, each beside the floor alone; their TTFB
  // and sequential CPU divide by the floor's figures there.
  const sequential = {
    [PASS_THROUGH]: seq(1.0, 900),
    'svir-openai': seq(1.2, 1100),
    [floorBeside(SVIR_RESPONSES)]: seq(0.7, 600),
    [SVIR_RESPONSES]: seq(0.9, 700),
    [floorBeside(PORTKEY)]: seq(0.8, 800),
    [PORTKEY]: seq(26.8, 2400),
  };
  const split = buildReport({ options, sequential });

  it('sets svir-responses against the floor of its turns, svir-openai against the main one', () => {
    expect(split.ratios[SVIR_RESPONSES]?.vsPassThrough).toMatchObject({ ttfbDeltaMs: 0.2, cpuPerRequestSequential: 1.167 });
    expect(split.ratios['svir-openai']?.vsPassThrough).toMatchObject({ ttfbDeltaMs: 0.2, cpuPerRequestSequential: 1.222 });
    expect(split.targets.find((t) => t.target === 'TTFB ≤ floor + 0.3 ms' && t.subject === SVIR_RESPONSES)).toMatchObject({ measured: '+0.200 ms', met: true });
    expect(split.ratios[floorBeside(SVIR_RESPONSES)]).toBeUndefined();
    expect(isSvirTarget(floorBeside(SVIR_RESPONSES))).toBe(false);
    expect(floorRows(split, [SVIR_RESPONSES])[1]).toEqual([SVIR_RESPONSES, '-', '-', '-', '700 (1.167×)', '0.900 (+0.200 ms)', '-']);
  });

  it('sets Portkey against the floor of its own turns, without a verdict', () => {
    expect(floorBeside(PORTKEY)).toBe('pass-through (beside portkey)');
    expect(split.ratios[PORTKEY]?.vsPassThrough).toMatchObject({ ttfbDeltaMs: 26, cpuPerRequestSequential: 3 });
    expect(floorRows(split, [PORTKEY])[1]).toEqual([PORTKEY, '-', '-', '-', '2400 (3.000×)', '26.800 (+26.000 ms)', '-']);
    expect(split.targets.some((t) => t.subject === PORTKEY || t.subject === floorBeside(PORTKEY))).toBe(false);
    expect(Object.keys(split.ratios).sort()).toEqual([PORTKEY, 'svir-openai', SVIR_RESPONSES].sort());
  });

  it('falls back to the main floor when the Responses turns had none (an older result)', () => {
    const older = Object.fromEntries(Object.entries(sequential).filter(([name]) => name !== floorBeside(SVIR_RESPONSES)));
    const report = buildReport({ options, sequential: older });
    expect(report.ratios[SVIR_RESPONSES]?.vsPassThrough).toMatchObject({ ttfbDeltaMs: -0.1 });
  });
});

describe('bench options: the setup of issue 15 by default', () => {
  it('runs 32 connections, 64 chunks, 4 interleaved rounds of 10 s, Portkey, bare-node and contract-minimum beside', () => {
    expect(options).toMatchObject({ connections: 32, chunks: 64, rounds: 4, durationS: 10, samples: 200, compare: ['bare-node', 'portkey', 'contract-minimum'] });
    expect(readOptions(['--quick'], {}).compare).toContain('contract-minimum');
  });

  it('keeps --quick short: two rounds of 2 s (one in each order)', () => {
    expect(readOptions(['--quick'], {})).toMatchObject({ quick: true, rounds: 2, durationS: 2, samples: 50, connections: 32, chunks: 64 });
    expect(options.quick).toBe(false);
  });

  it('leaves comparison targets out on request', () => {
    expect(readOptions(['--compare', 'none'], {}).compare).toEqual([]);
    expect(readOptions(['--compare', 'portkey'], {}).compare).toEqual(['portkey']);
    expect(readOptions([], { BENCH_COMPARE: 'bare-node' }).compare).toEqual(['bare-node']);
  });
});

describe('bench report: contract-minimum and paused streams', () => {
  const withMinimum = buildReport({
    options,
    load: { [PASS_THROUGH]: load(2000, 20, 500), [CONTRACT_MINIMUM]: load(1600, 25, 700), 'svir-openai': load(1000, 40, 1400) },
    sequential: { [PASS_THROUGH]: seq(1.0, 900), [CONTRACT_MINIMUM]: seq(1.1, 1000), 'svir-openai': seq(1.5, 1500) },
    openStreams: {
      streams: 1000,
      chunkDelayMs: 250,
      chunks: 64,
      targets: { [PASS_THROUGH]: stream('chat', 40), 'svir-openai': stream('chat', 50) },
      paused: { [PASS_THROUGH]: stream('chat', 20), 'svir-openai': stream('chat', 30) },
      pausedForMs: 18_000,
    },
  });

  it('gives contract-minimum ratios against the floor and no verdict, and svir its ratios ÷ contract-minimum', () => {
    expect(isSvirTarget(CONTRACT_MINIMUM)).toBe(false);
    expect(withMinimum.targets.some((t) => t.subject === CONTRACT_MINIMUM)).toBe(false);
    expect(withMinimum.ratios[CONTRACT_MINIMUM]?.vsPassThrough).toMatchObject({ cpuPerRequest: 1.4, requestsPerSec: 0.8 });
    expect(withMinimum.ratios[CONTRACT_MINIMUM]?.vsContractMinimum).toBeUndefined();
    expect(withMinimum.ratios['svir-openai']?.vsContractMinimum).toMatchObject({ cpuPerRequest: 2, cpuPerRequestSequential: 1.5, requestsPerSec: 0.625, ttfbDeltaMs: 0.4 });
    const text = formatReport(withMinimum);
    expect(text).toContain('svir ÷ contract-minimum');
    expect(text).toMatch(/svir-openai\s+÷ contract-minimum\s+0\.625/);
  });

  it('prints the paused streams against the floor’s paused streams', () => {
    const text = formatReport(withMinimum);
    expect(text).toContain('Paused streams: the same, each client reading nothing after the headers for 18 s');
    expect(text).toMatch(/svir-openai\s+1000\s+[\d.]+\s+[\d.]+\s+30\.0\s+1\.500\s+0/);
  });
});
