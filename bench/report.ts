/**
 * The benchmark's results: every target against the floor (the fastify + @fastify/http-proxy
 * pass-through issue 15 names) and the direct mock, each target of issue 15 (and the memory
 * targets of issue 8) marked met or missed for svir, Portkey and the plain node:http
 * pass-through beside them for comparison, a printed table, and the JSON written to
 * bench/results/.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { MemoryResult } from './memory-50mb.js';
import type { NormalizerResult } from './normalizer.js';
import type { OpenStreamsMeasure, OpenStreamsResult } from './open-streams.js';
import type { BenchOptions } from './options.js';
import type { LoadResult } from './load.js';
import { BLOCK_TURNS, type SequentialResult } from './sequential.js';
import { formatSideBySide, type SideBySideResult } from './side-by-side.js';

export const DIRECT = 'direct';
/** The floor of every ratio and target: fastify 5 + @fastify/http-proxy (pass-through.ts). */
export const PASS_THROUGH = 'pass-through';
/** Plain node:http + undici (bare-node.ts): beside the floor, for information. */
export const BARE_NODE = 'bare-node';
/** The least the contract asks of any proxy (contract-minimum.ts): how much of svir's cost is its own. */
export const CONTRACT_MINIMUM = 'contract-minimum';
/** Portkey's gateway (portkey.ts): the comparison issue 15 names. */
export const PORTKEY = 'portkey';
export const SVIR_TARGETS = ['svir-openai', 'svir-llamacpp'] as const;
/** svir's Responses route, the mock as an `openai` backend (when the build has the route). */
export const SVIR_RESPONSES = 'svir-responses';
/** svir with `cluster.redis` against a redis-server on loopback (`--redis`), the mock as an `openai` backend. */
export const SVIR_CLUSTER = 'svir-cluster';
/** svir's Messages route (Anthropic's API), the mock as an `openai` backend (when the build has the route). */
export const SVIR_MESSAGES = 'svir-messages';
/** A candidate build (`--candidate`), run with the mock as an `openai` backend next to the rest. */
export const CANDIDATE = 'candidate-openai';

/**
 * Targets that take their sequential turns apart, each beside the floor alone: svir's Responses
 * route (it shared svir-openai's process until it got one of its own; it keeps its turns apart
 * so that its figures stay comparable with earlier runs'), and Portkey, whose answers take some
 * 30 ms (it would stretch every other target's turns, and the background CPU each process spends
 * per turn with them). Each is set against the floor of its own turns.
 */
export const APART = [SVIR_RESPONSES, PORTKEY] as const;

/** The floor's name in the sequential turns it took beside `name`. */
export function floorBeside(name: string): string {
  return `${PASS_THROUGH} (beside ${name})`;
}

const isFloor = (name: string): boolean => name === PASS_THROUGH || APART.some((apart) => name === floorBeside(apart));

/** Targets measured for comparison: ratios against the floor, no verdicts. */
const COMPARED = new Set([BARE_NODE, PORTKEY, CONTRACT_MINIMUM]);

/** Whether issue 15's targets apply to this target (svir's, a candidate's; not the floor, the mock or a comparison). */
export function isSvirTarget(name: string): boolean {
  return name !== DIRECT && !isFloor(name) && !COMPARED.has(name);
}

/** The sequential figures of the floor that `name` took its turns beside. */
export function sequentialFloor(sequential: Record<string, SequentialResult> | undefined, name: string): SequentialResult | undefined {
  return sequential?.[floorBeside(name)] ?? sequential?.[PASS_THROUGH];
}

/** Every target set against the floor: all but the mock itself and the floor, in the order measured. */
function againstFloor(report: { load?: Record<string, unknown>; sequential?: Record<string, unknown> }): string[] {
  const names = new Set([...Object.keys(report.load ?? {}), ...Object.keys(report.sequential ?? {})]);
  const found = [...names].filter((n) => n !== DIRECT && !isFloor(n));
  return found.length > 0 ? found : [...SVIR_TARGETS];
}

export interface LoadSummary {
  rounds: LoadResult[];
  /** Medians over the rounds. */
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** CPU time (user + system) of the target's own process per completed request, summed over rounds. */
  cpuUsPerRequest: number;
  /** CPU time of the mock upstream per request in the same runs (context: the mock's share). */
  upstreamCpuUsPerRequest: number;
  rssAfterLoadBytes: number;
  failures: number;
}

export interface BenchReport {
  timestamp: string;
  machine: { cpus: number; cpuModel: string; node: string; platform: string };
  options: BenchOptions;
  /** Installed versions of the floor's and the comparison targets' packages. */
  versions?: Record<string, string>;
  /** Per target process: connections or lookups beyond loopback refused (Portkey's must be 0). */
  networkRefusals?: Record<string, number>;
  load?: Record<string, LoadSummary>;
  sequential?: Record<string, SequentialResult>;
  normalizer?: NormalizerResult;
  memory?: MemoryResult;
  openStreams?: OpenStreamsResult;
  /** A candidate build and svir-openai under load at the same time (`--candidate`). */
  sideBySide?: SideBySideResult;
  /** svir's targets also get `vsContractMinimum` when contract-minimum was measured: how much of their cost is svir's own. */
  ratios: Record<string, { vsDirect: Record<string, number>; vsPassThrough: Record<string, number>; vsContractMinimum?: Record<string, number> }>;
  targets: TargetCheck[];
}

export interface TargetCheck {
  target: string;
  subject: string;
  measured: string;
  limit: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

function ratios(report: Omit<BenchReport, 'ratios' | 'targets'>, svir: string, base: string): Record<string, number> {
  const out: Record<string, number> = {};
  const l = report.load;
  const a = l?.[svir];
  const b = l?.[base];
  if (a !== undefined && b !== undefined) {
    out.requestsPerSec = round(a.requestsPerSec / b.requestsPerSec);
    out.latencyP50 = round(a.latencyP50Ms / b.latencyP50Ms);
    out.latencyP99 = round(a.latencyP99Ms / b.latencyP99Ms);
    out.cpuPerRequest = round(a.cpuUsPerRequest / b.cpuUsPerRequest);
  }
  const s = report.sequential;
  const sa = s?.[svir];
  const sb = base === PASS_THROUGH ? sequentialFloor(s, svir) : s?.[base];
  if (sa !== undefined && sb !== undefined) {
    out.ttfbMedian = round(sa.ttfbMedianMs / sb.ttfbMedianMs);
    out.totalMedian = round(sa.totalMedianMs / sb.totalMedianMs);
    out.ttfbDeltaMs = round(sa.ttfbMedianMs - sb.ttfbMedianMs);
    if (sa.cpuUsPerRequest !== undefined && sb.cpuUsPerRequest !== undefined) {
      out.cpuPerRequestSequential = round(sa.cpuUsPerRequest / sb.cpuUsPerRequest);
    }
  }
  return out;
}

/** Issue 15's limits. */
const TTFB_DELTA_MS = 0.3;
const OPEN_STREAM_RATIO = 1.5;
const NORMALIZER_CHUNKS_PER_SEC = 1_000_000;

function signedMs(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)} ms`;
}

function checks(report: Omit<BenchReport, 'targets'>): TargetCheck[] {
  const out: TargetCheck[] = [];
  for (const svir of againstFloor(report).filter(isSvirTarget)) {
    const seq = report.sequential;
    const ttfb = seq?.[svir];
    const passTtfb = sequentialFloor(seq, svir);
    out.push({
      target: `TTFB ≤ floor + ${TTFB_DELTA_MS} ms`,
      subject: svir,
      measured: ttfb && passTtfb ? signedMs(ttfb.ttfbMedianMs - passTtfb.ttfbMedianMs) : '-',
      limit: `+${TTFB_DELTA_MS.toFixed(3)} ms`,
      met: ttfb && passTtfb ? ttfb.ttfbMedianMs <= passTtfb.ttfbMedianMs + TTFB_DELTA_MS : undefined,
    });
    const r = report.ratios[svir]?.vsPassThrough;
    const rps = r?.requestsPerSec;
    out.push({
      target: 'requests/s ≥ 0.8 × floor',
      subject: svir,
      measured: rps === undefined ? '-' : `${rps.toFixed(3)}×`,
      limit: '≥ 0.800×',
      met: rps === undefined ? undefined : rps >= 0.8,
    });
    const p99 = r?.latencyP99;
    out.push({
      target: 'p99 ≤ 1.3 × floor',
      subject: svir,
      measured: p99 === undefined ? '-' : `${p99.toFixed(3)}×`,
      limit: '≤ 1.300×',
      met: p99 === undefined ? undefined : p99 <= 1.3,
    });
    const seqCpu = r?.cpuPerRequestSequential;
    out.push({
      target: 'CPU/request ≤ 1.3 × floor (sequential)',
      subject: svir,
      measured: seqCpu === undefined ? '-' : `${seqCpu.toFixed(3)}×`,
      limit: '≤ 1.300×',
      met: seqCpu === undefined ? undefined : seqCpu <= 1.3,
    });
    const cpu = r?.cpuPerRequest;
    out.push({
      target: 'CPU/request ≤ 1.3 × floor (load)',
      subject: svir,
      measured: cpu === undefined ? '-' : `${cpu.toFixed(3)}×`,
      limit: '≤ 1.300×',
      met: cpu === undefined ? undefined : cpu <= 1.3,
    });
  }
  const streams = report.openStreams?.targets;
  const floor = streams?.[PASS_THROUGH];
  for (const [name, measured] of Object.entries(streams ?? {})) {
    if (!isSvirTarget(name)) continue;
    const ratio = floor === undefined || floor.perStreamBytes === 0 ? undefined : measured.perStreamBytes / floor.perStreamBytes;
    out.push({
      target: `memory per open stream ≤ ${OPEN_STREAM_RATIO} × floor`,
      subject: name,
      measured: ratio === undefined ? '-' : `${ratio.toFixed(3)}× (${kb(measured.perStreamBytes)} KB)`,
      limit: `≤ ${OPEN_STREAM_RATIO.toFixed(3)}×`,
      met: ratio === undefined ? undefined : ratio <= OPEN_STREAM_RATIO && measured.failed === 0,
    });
  }
  const plain = report.normalizer?.scenarios.plain;
  out.push({
    target: 'normalizer ≥ 1M chunks/s (plain, one core)',
    subject: 'normalize pipeline',
    measured: plain === undefined ? '-' : `${Math.round(plain.chunksPerSec).toLocaleString('en')} /s`,
    limit: `≥ ${NORMALIZER_CHUNKS_PER_SEC.toLocaleString('en')} /s`,
    met: plain === undefined ? undefined : plain.chunksPerSec >= NORMALIZER_CHUNKS_PER_SEC,
  });
  const mem = report.memory?.svir;
  out.push({
    target: `${report.memory?.bodyMb ?? 50} MB image: peak RSS growth < 4 × body (issue 8)`,
    subject: 'svir-openai',
    measured: mem === undefined ? '-' : `${mem.growthRatio.toFixed(2)}×`,
    limit: '< 4.00×',
    met: mem === undefined ? undefined : mem.ok && mem.growthRatio < 4,
  });
  out.push({
    target: 'idle RSS < 80 MB (issue 8)',
    subject: 'svir-openai',
    measured: mem === undefined ? '-' : `${(mem.idleRssBytes / 1e6).toFixed(1)} MB`,
    limit: '< 80 MB',
    met: mem === undefined ? undefined : mem.idleRssBytes < 80e6,
  });
  return out;
}

export function buildReport(parts: Omit<BenchReport, 'ratios' | 'targets' | 'timestamp' | 'machine'>): BenchReport {
  const cpuList = cpus();
  const base = {
    ...parts,
    timestamp: new Date().toISOString(),
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model ?? 'unknown',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
  };
  const withRatios = {
    ...base,
    ratios: Object.fromEntries(
      againstFloor(base).map((svir) => {
        const measured = base.load?.[CONTRACT_MINIMUM] !== undefined || base.sequential?.[CONTRACT_MINIMUM] !== undefined;
        const vsContractMinimum = measured && isSvirTarget(svir) ? { vsContractMinimum: ratios(base, svir, CONTRACT_MINIMUM) } : {};
        return [svir, { vsDirect: ratios(base, svir, DIRECT), vsPassThrough: ratios(base, svir, PASS_THROUGH), ...vsContractMinimum }];
      }),
    ),
  };
  return { ...withRatios, targets: checks(withRatios) };
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const ms = (x: number): string => x.toFixed(3);
const mb = (x: number): string => (x / 1e6).toFixed(1);
function kb(x: number): string {
  return (x / 1e3).toFixed(1);
}

/** An open-streams row from its most-open count on: the same cells for streams read as they come and paused ones. */
function openStreamCells(t: OpenStreamsMeasure, floorPerStream: number | undefined): string[] {
  return [
    String(t.maxOpen),
    mb(t.idleRssBytes),
    mb(t.peakRssBytes),
    kb(t.perStreamBytes),
    floorPerStream === undefined || floorPerStream === 0 ? '-' : (t.perStreamBytes / floorPerStream).toFixed(3),
    String(t.failed),
  ];
}

export function formatReport(report: BenchReport): string {
  const out: string[] = [];
  out.push(`svir benchmarks, ${report.timestamp}, ${report.machine.cpus} × ${report.machine.cpuModel}, node ${report.machine.node}`);
  const o = report.options;
  out.push(
    `load: ${o.connections} connections, ${o.durationS} s × ${o.rounds} rounds; sequential: median of ${o.samples}; ` +
      `mock: ${o.chunks} chunks, ${o.delayMs} ms apart, reasoning ${o.reasoning}, tools ${o.toolCalls ? 'on' : 'off'}`,
  );
  out.push(describeTargets(report.versions ?? {}));
  if (report.load !== undefined) {
    out.push('', 'Load (medians over rounds; CPU of the target process)');
    out.push(
      table(
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'mock µs/req', 'RSS MB', 'failed'],
        Object.entries(report.load).map(([name, l]) => [
          name,
          l.requestsPerSec.toFixed(0),
          l.latencyP50Ms.toFixed(0),
          l.latencyP99Ms.toFixed(0),
          l.cpuUsPerRequest.toFixed(0),
          l.upstreamCpuUsPerRequest.toFixed(0),
          mb(l.rssAfterLoadBytes),
          String(l.failures),
        ]),
      ),
    );
  }
  if (report.sequential !== undefined) {
    out.push(
      '',
      `Sequential (medians; requests take turns between targets; CPU of the target process: median over blocks of ${BLOCK_TURNS} turns, and the mean over all)`,
    );
    out.push(
      table(
        ['target', 'TTFB ms', 'first text ms', 'total ms', 'CPU µs/req', 'CPU mean', 'failed'],
        Object.entries(report.sequential).map(([name, s]) => [
          name,
          ms(s.ttfbMedianMs),
          ms(s.ttftMedianMs),
          ms(s.totalMedianMs),
          s.cpuUsPerRequest === undefined ? '-' : s.cpuUsPerRequest.toFixed(0),
          s.cpuUsPerRequestMean === undefined ? '-' : s.cpuUsPerRequestMean.toFixed(0),
          String(s.failures),
        ]),
      ),
    );
  }
  if (report.normalizer !== undefined) {
    out.push('', 'Normalizer alone (decode → adapter → normalize → encode, one core)');
    out.push(
      table(
        ['scenario', 'chunks/s', 'µs/chunk'],
        Object.entries(report.normalizer.scenarios).map(([name, s]) => [
          name,
          Math.round(s.chunksPerSec).toLocaleString('en'),
          (1e6 / s.chunksPerSec).toFixed(2),
        ]),
      ),
    );
  }
  if (report.memory !== undefined) {
    const m = report.memory;
    out.push('', `Memory: one request with a ${m.bodyMb} MB base64 image body`);
    out.push(
      table(
        ['process', 'idle MB', 'before MB', 'peak MB', 'growth MB', 'growth ÷ body', 'status'],
        [
          ['svir-openai', m.svir],
          ['pass-through', m.passThrough],
        ].flatMap(([name, r]) =>
          typeof r === 'object' && r !== null && typeof name === 'string'
            ? [[name, mb(r.idleRssBytes), mb(r.rssBeforeBytes), mb(r.peakRssBytes), mb(r.growthBytes), r.growthRatio.toFixed(2), r.ok ? 'ok' : r.detail]]
            : [],
        ),
      ),
    );
  }
  if (report.openStreams !== undefined) {
    const o = report.openStreams;
    const floor = o.targets[PASS_THROUGH]?.perStreamBytes;
    out.push('', `Open streams: ${o.streams} at once, ${o.chunks} chunks ${o.chunkDelayMs} ms apart; peak RSS over idle ÷ streams`);
    out.push(
      table(
        ['target', 'route', 'most open', 'idle MB', 'peak MB', 'KB/stream', '÷ floor', 'failed'],
        Object.entries(o.targets).map(([name, t]) => [name, t.route, ...openStreamCells(t, floor)]),
      ),
    );
  }
  if (report.sideBySide !== undefined) out.push('', ...formatSideBySide(report.sideBySide));
  const paused = report.openStreams?.paused;
  if (paused !== undefined && Object.keys(paused).length > 0) {
    const floor = paused[PASS_THROUGH]?.perStreamBytes;
    const pausedS = ((report.openStreams?.pausedForMs ?? 0) / 1000).toFixed(0);
    out.push('', `Paused streams: the same, each client reading nothing after the headers for ${pausedS} s (the answer's whole pacing and 2 s more)`);
    out.push(
      table(
        ['target', 'most open', 'idle MB', 'peak MB', 'KB/stream', '÷ floor', 'failed'],
        Object.entries(paused).map(([name, t]) => [name, ...openStreamCells(t, floor)]),
      ),
    );
  }
  const compared = againstFloor(report);
  if (compared.length > 0 && (report.load !== undefined || report.sequential !== undefined || report.openStreams !== undefined)) {
    out.push('', 'Against the floor (issue 15: each figure, then ÷ floor or Δ over the floor)');
    out.push(table(['target', 'req/s', 'p99 ms', 'CPU µs/req load', 'CPU µs/req seq', 'TTFB ms', 'KB/open stream'], floorRows(report, compared)));
  }
  const ratioRows = Object.entries(report.ratios).flatMap(([svir, r]) => [
    [svir, '÷ direct', ...ratioCells(r.vsDirect)],
    [svir, '÷ floor', ...ratioCells(r.vsPassThrough)],
    ...(r.vsContractMinimum === undefined ? [] : [[svir, `÷ ${CONTRACT_MINIMUM}`, ...ratioCells(r.vsContractMinimum)]]),
  ]);
  const own = Object.entries(report.ratios).flatMap(([svir, r]) => (r.vsContractMinimum === undefined ? [] : [[svir, r.vsContractMinimum] as const]));
  if (own.length > 0) {
    out.push('', `svir ÷ ${CONTRACT_MINIMUM} (the least the contract asks of any proxy: above 1, the cost is svir's own)`);
    out.push(
      table(
        ['target', 'CPU/req load', 'CPU/req seq', 'req/s', 'p99', 'TTFB Δ ms'],
        own.map(([svir, r]) => [svir, ...[r.cpuPerRequest, r.cpuPerRequestSequential, r.requestsPerSec, r.latencyP99, r.ttfbDeltaMs].map((x) => (x === undefined ? '-' : x.toFixed(3)))]),
      ),
    );
  }
  out.push('', 'Ratios (floor = pass-through: fastify + @fastify/http-proxy)');
  out.push(table(['target', 'against', 'req/s', 'p50', 'p99', 'CPU/req load', 'CPU/req seq', 'TTFB', 'TTFB Δ ms'], ratioRows));
  out.push('', 'Targets of issue 15 for svir, against the floor (memory of issue 8)');
  out.push(
    table(
      ['target', 'subject', 'measured', 'limit', 'verdict'],
      report.targets.map((t) => [t.target, t.subject, t.measured, t.limit, t.met === undefined ? 'not run' : t.met ? 'met' : 'MISSED']),
    ),
  );
  const refusals = Object.entries(report.networkRefusals ?? {});
  if (refusals.length > 0) {
    out.push('', `Kept off the network (connections or lookups beyond loopback refused): ${refusals.map(([n, c]) => `${n} ${c}`).join(', ')}`);
  }
  return out.join('\n');
}

/** Who the targets are, with the versions that make the floor and the comparisons. */
export function describeTargets(versions: Record<string, string>): string {
  const v = (name: string): string => versions[name] ?? '?';
  return [
    `floor = ${PASS_THROUGH}: fastify ${v('fastify')} + @fastify/http-proxy ${v('@fastify/http-proxy')} (reply-from ${v('@fastify/reply-from')}, undici ${v('undici')}); ` +
      'every ratio and target divides by it',
    `compared: ${BARE_NODE} (plain node:http + undici ${v('undici')}), ${CONTRACT_MINIMUM} (the contract's own work, hand-written: fastify, ` +
      `undici, pino), ${PORTKEY} (@portkey-ai/gateway ${v('@portkey-ai/gateway')}, @hono/node-server ${v('@hono/node-server')}); direct: the mock itself`,
  ].join('\n');
}

/** One row per target: the figure itself and its ratio to the floor's (TTFB: the difference). */
export function floorRows(report: Omit<BenchReport, 'ratios' | 'targets'>, names: readonly string[]): string[][] {
  const floorLoad = report.load?.[PASS_THROUGH];
  const floorStream = report.openStreams?.targets[PASS_THROUGH];
  const cell = (value: number | undefined, floor: number | undefined, digits: number): string => {
    if (value === undefined || !Number.isFinite(value)) return '-';
    const shown = value.toFixed(digits);
    return floor === undefined || !Number.isFinite(floor) || floor === 0 ? shown : `${shown} (${(value / floor).toFixed(3)}×)`;
  };
  const delta = (value: number | undefined, floor: number | undefined): string => {
    if (value === undefined) return '-';
    return floor === undefined ? ms(value) : `${ms(value)} (${signedMs(value - floor)})`;
  };
  const row = (name: string, isFloor: boolean): string[] => {
    const l = report.load?.[name];
    const s = report.sequential?.[name];
    const m = report.openStreams?.targets[name];
    const floorSeq = sequentialFloor(report.sequential, name);
    // The floor's own row shows its figures alone.
    const base = (x: number | undefined): number | undefined => (isFloor ? undefined : x);
    return [
      isFloor ? `${name} (floor)` : name,
      cell(l?.requestsPerSec, base(floorLoad?.requestsPerSec), 0),
      cell(l?.latencyP99Ms, base(floorLoad?.latencyP99Ms), 0),
      cell(l?.cpuUsPerRequest, base(floorLoad?.cpuUsPerRequest), 0),
      cell(s?.cpuUsPerRequest, base(floorSeq?.cpuUsPerRequest), 0),
      isFloor ? (s === undefined ? '-' : ms(s.ttfbMedianMs)) : delta(s?.ttfbMedianMs, floorSeq?.ttfbMedianMs),
      cell(m === undefined ? undefined : m.perStreamBytes / 1e3, base(floorStream === undefined ? undefined : floorStream.perStreamBytes / 1e3), 1),
    ];
  };
  return [row(PASS_THROUGH, true), ...names.map((n) => row(n, false))];
}

function ratioCells(r: Record<string, number>): string[] {
  const f = (x: number | undefined): string => (x === undefined ? '-' : x.toFixed(3));
  return [
    f(r.requestsPerSec),
    f(r.latencyP50),
    f(r.latencyP99),
    f(r.cpuPerRequest),
    f(r.cpuPerRequestSequential),
    f(r.ttfbMedian),
    f(r.ttfbDeltaMs),
  ];
}

export async function writeReport(report: BenchReport, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const file = join(dir, `${report.timestamp.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, json);
  await writeFile(join(dir, 'latest.json'), json);
  return file;
}
