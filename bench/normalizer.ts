/**
 * Micro-benchmark of svir's per-chunk path alone, no I/O: SSE decoder → adapter.readEvent →
 * normalizer → SSE encoder, on one core, over pre-built upstream bytes fed one event per read
 * (as a token-paced server delivers them). Reports upstream chunks per second of CPU time, the
 * best of several rounds (the least disturbed on a shared machine), for:
 *   plain      a 64-chunk answer (the target: ≥ 250,000 chunks/s)
 *   reasoning  reasoning as `<think>` tags inside content, the markers split across chunks
 *   tools      two tool calls whose names and arguments arrive interleaved
 *
 * Standalone: `node --import tsx bench/normalizer.ts [--micro 2] [--chunks 64] [--svir-from dist]
 * [--candidate /path/to/other/dist/cli.js]` (the candidate build is measured in turns with this one);
 * with `--cpu-prof` in front of `--import` for a profile of exactly this path.
 */
import { performance } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StreamContext } from '../src/normalize/stream-context.js';
import { createStreamMemo } from '../src/normalize/stream-memo.js';
import * as adaptersSrc from '../src/adapters/index.js';
import type { CleanChunk } from '../src/normalize/clean-chunk.js';
import * as normalizerSrc from '../src/normalize/normalizer.js';
import * as decoderSrc from '../src/normalize/sse-decoder.js';
import * as encoderSrc from '../src/normalize/sse-encoder.js';
import { buildMockStream, type MockStreamOptions } from './mock-stream.js';
import { readOptions } from './options.js';
import { median } from './sequential.js';

export interface ScenarioResult {
  /** Best round: the least disturbed by other work on the machine. */
  chunksPerSec: number;
  medianChunksPerSec: number;
  /** Upstream chunks (SSE events) in one stream. */
  chunksPerStream: number;
  /** Per round, chunks per second. */
  rounds: number[];
}

export interface NormalizerResult {
  scenarios: Record<'plain' | 'reasoning' | 'tools', ScenarioResult>;
  /** The plain stream, priced per stage: CPU microseconds per upstream chunk (best rounds). */
  plainStagesUs: { decode: number; readEvent: number; normalize: number; encode: number };
}

interface Scenario {
  reads: Uint8Array[];
  events: number;
  ctx: StreamContext;
}

const BASE_CTX: StreamContext = {
  model: 'bench-model',
  backend: 'mock',
  toolNames: [],
  includeUsage: true,
  logprobs: false,
  structuredOutput: false,
  reasoningTags: 'auto',
  reasoningOff: false,
  reasoningField: 'reasoning_content',
  memo: createStreamMemo(),
};

function scenario(stream: Omit<MockStreamOptions, 'dialect' | 'usage'>, ctx: Partial<StreamContext>): Scenario {
  const events = buildMockStream({ ...stream, usage: true, dialect: 'openai' });
  // One buffer, one read per event: views, so feeding copies nothing the real server loop would not.
  const whole = Buffer.concat(events);
  const reads: Uint8Array[] = [];
  let offset = 0;
  for (const e of events) {
    reads.push(whole.subarray(offset, offset + e.length));
    offset += e.length;
  }
  return { reads, events: events.length, ctx: { ...BASE_CTX, ...ctx } };
}

/**
 * The modules under test: the sources (through tsx), or a build directory (`dist/`, or a
 * candidate's), whose profile then names the lines users run. A build is the compiled form of
 * the same modules, so it has the same exports.
 */
interface Pipeline {
  createNormalizer: typeof normalizerSrc.createNormalizer;
  createSseDecoder: typeof decoderSrc.createSseDecoder;
  /** A stream's chunk encoder (one per stream). */
  createChunkEncoder: typeof encoderSrc.createChunkEncoder;
  adapter: ReturnType<typeof adaptersSrc.getAdapter>;
}

async function loadPipeline(from: 'src' | { dist: string }): Promise<Pipeline> {
  if (from === 'src') {
    return {
      createNormalizer: normalizerSrc.createNormalizer,
      createSseDecoder: decoderSrc.createSseDecoder,
      createChunkEncoder: encoderSrc.createChunkEncoder,
      adapter: adaptersSrc.getAdapter('openai'),
    };
  }
  const url = (path: string): string => pathToFileURL(join(from.dist, path)).href;
  const adapters: typeof adaptersSrc = await import(url('adapters/index.js'));
  const normalizer: typeof normalizerSrc = await import(url('normalize/normalizer.js'));
  const decoder: typeof decoderSrc = await import(url('normalize/sse-decoder.js'));
  // A build from before the per-stream encoder has one module-level encodeChunk instead.
  const encoder: Partial<typeof encoderSrc> & { encodeChunk?: (chunk: CleanChunk) => string } = await import(url('normalize/sse-encoder.js'));
  const { encodeChunk } = encoder;
  const createChunkEncoder = encoder.createChunkEncoder ?? (encodeChunk === undefined ? undefined : () => encodeChunk);
  if (createChunkEncoder === undefined) throw new Error(`${from.dist}: normalize/sse-encoder.js has no chunk encoder`);
  return {
    createNormalizer: normalizer.createNormalizer,
    createSseDecoder: decoder.createSseDecoder,
    createChunkEncoder,
    adapter: adapters.getAdapter('openai'),
  };
}

let idCounter = 0;
const deps = { makeId: (kind: 'completion' | 'call') => `${kind}-${idCounter++}`, now: () => 1_760_000_000_000 };

/** How far down the pipeline a run goes: the differences between depths price each stage. */
const enum Depth {
  Decode = 1,
  Read = 2,
  Normalize = 3,
  Encode = 4,
}

/** One whole stream through the pipeline; returns a count that depends on every stage run (kept, so nothing is optimized away). */
function runStream(p: Pipeline, s: Scenario, depth: Depth): number {
  const decoder = p.createSseDecoder();
  // A context per stream, as svir makes one: its memo (the text-chunk template) is the stream's own.
  const ctx: StreamContext = { ...s.ctx, memo: createStreamMemo() };
  const normalizer = p.createNormalizer(ctx, deps);
  const encode = p.createChunkEncoder();
  let sink = 0;
  let done = false;
  for (const read of s.reads) {
    for (const event of decoder.feed(read)) {
      if (depth === Depth.Decode) {
        sink += event.data.length;
        continue;
      }
      const parts = p.adapter.readEvent(event, ctx);
      if (depth === Depth.Read) {
        sink += parts.length;
        continue;
      }
      const step = normalizer.push(parts);
      if (step.error !== undefined) throw step.error;
      if (step.done) done = true;
      if (depth === Depth.Normalize) sink += step.chunks.length;
      else for (const chunk of step.chunks) sink += encode(chunk).length;
    }
  }
  if (!done && depth >= Depth.Normalize) {
    const step = normalizer.end();
    if (step.error !== undefined) throw step.error;
  }
  return sink;
}

/**
 * The scenario exercises the path it is named after (a benchmark of an error path would
 * flatter svir): reasoning comes out as reasoning with no tag left in the answer, and both
 * tool calls come out whole. Returns the encoded stream, to compare two builds byte for byte.
 */
function verify(p: Pipeline, name: string, s: Scenario): string {
  const decoder = p.createSseDecoder();
  const ctx: StreamContext = { ...s.ctx, memo: createStreamMemo() };
  const normalizer = p.createNormalizer(ctx, { makeId: (kind) => `${kind}-fixed`, now: deps.now });
  const chunks: CleanChunk[] = [];
  let done = false;
  for (const read of s.reads) {
    for (const event of decoder.feed(read)) {
      const step = normalizer.push(p.adapter.readEvent(event, ctx));
      if (step.error !== undefined) throw new Error(`${name}: the stream failed: ${step.error.message}`);
      chunks.push(...step.chunks);
      done ||= step.done;
    }
  }
  const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta));
  const content = deltas.map((d) => d.content ?? '').join('');
  const reasoning = deltas.map((d) => (typeof d.reasoning_content === 'string' ? d.reasoning_content : '')).join('');
  const calls = new Set(deltas.flatMap((d) => (d.tool_calls ?? []).flatMap((t) => (t.id === undefined ? [] : [t.id]))));
  const finish = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter((f) => f !== null);
  const problems: string[] = [];
  if (!done) problems.push('no [DONE]');
  if (content.includes('<') || content.includes('think>')) problems.push(`a tag left in content: ${JSON.stringify(content.slice(0, 80))}`);
  if (name === 'plain' && (content.length === 0 || finish.join() !== 'stop')) problems.push(`content ${content.length} chars, finish ${finish.join()}`);
  if (name === 'reasoning' && reasoning.length === 0) problems.push('no reasoning out');
  if (name === 'tools' && (calls.size !== 2 || finish.join() !== 'tool_calls')) problems.push(`${calls.size} calls, finish ${finish.join()}`);
  if (chunks.at(-1)?.usage === undefined) problems.push('no usage chunk');
  if (problems.length > 0) throw new Error(`normalizer scenario ${name}: ${problems.join('; ')}`);
  const encode = p.createChunkEncoder();
  return chunks.map((c) => encode(c)).join('');
}

/**
 * Chunks per second of CPU time (user + system of this process), not of wall time: on a shared
 * machine the wall clock also counts the time the process waited for a core.
 */
function measure(p: Pipeline, s: Scenario, seconds: number, depth = Depth.Encode): number {
  let streams = 0;
  let sink = 0;
  const cpuStart = process.cpuUsage();
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    // Batches of streams between clock reads, so reading the clock costs nothing measurable.
    for (let i = 0; i < 50; i++) sink += runStream(p, s, depth);
    streams += 50;
  }
  const cpu = process.cpuUsage(cpuStart);
  if (sink === 0) throw new Error('the pipeline produced nothing');
  return (streams * s.events) / ((cpu.user + cpu.system) / 1e6);
}

type ScenarioName = 'plain' | 'reasoning' | 'tools';

/** Rounds that take turns between scenarios (and between builds, with a candidate). */
function measureAll(
  pipelines: Pipeline[],
  scenarios: Record<ScenarioName, Scenario>,
  options: { seconds: number; rounds: number },
): NormalizerResult[] {
  const names: ScenarioName[] = ['plain', 'reasoning', 'tools'];
  const rounds = pipelines.map(() => ({ plain: [] as number[], reasoning: [] as number[], tools: [] as number[] }));
  const depths = pipelines.map(() => ({ [Depth.Decode]: [] as number[], [Depth.Read]: [] as number[], [Depth.Normalize]: [] as number[] }));
  for (const p of pipelines) for (const name of names) measure(p, scenarios[name], Math.min(0.5, options.seconds));
  for (let r = 0; r < options.rounds; r++) {
    pipelines.forEach((p, i) => {
      for (const name of names) rounds[i]?.[name].push(measure(p, scenarios[name], options.seconds));
      for (const depth of [Depth.Decode, Depth.Read, Depth.Normalize] as const) {
        depths[i]?.[depth].push(measure(p, scenarios.plain, options.seconds / 2, depth));
      }
    });
  }
  const usPerChunk = (perSec: number[] | undefined): number => 1e6 / Math.max(...(perSec ?? []));
  return pipelines.map((_, i) => {
    const own = rounds[i] ?? { plain: [], reasoning: [], tools: [] };
    const decode = usPerChunk(depths[i]?.[Depth.Decode]);
    const read = usPerChunk(depths[i]?.[Depth.Read]);
    const normalize = usPerChunk(depths[i]?.[Depth.Normalize]);
    const all = usPerChunk(own.plain);
    const result = (name: ScenarioName): ScenarioResult => ({
      chunksPerSec: Math.max(...own[name]),
      medianChunksPerSec: median(own[name]),
      chunksPerStream: scenarios[name].events,
      rounds: own[name],
    });
    return {
      scenarios: { plain: result('plain'), reasoning: result('reasoning'), tools: result('tools') },
      plainStagesUs: { decode, readEvent: read - decode, normalize: normalize - read, encode: all - normalize },
    };
  });
}

export async function runNormalizerBench(options: {
  seconds: number;
  rounds: number;
  chunks: number;
  from: 'src' | 'dist';
  /** A candidate build's directory, measured in turns with `from` in the same process. */
  candidateDist?: string | undefined;
}): Promise<NormalizerResult & { candidate?: NormalizerResult }> {
  const base = await loadPipeline(options.from === 'src' ? 'src' : { dist: fileURLToPath(new URL('../dist/', import.meta.url)) });
  const pipelines = [base];
  if (options.candidateDist !== undefined) pipelines.push(await loadPipeline({ dist: options.candidateDist }));
  const scenarios: Record<ScenarioName, Scenario> = {
    plain: scenario({ chunks: options.chunks, reasoning: 'off', toolCalls: false }, {}),
    reasoning: scenario({ chunks: options.chunks, reasoning: 'tags', toolCalls: false }, { reasoningTags: 'auto' }),
    tools: scenario(
      { chunks: options.chunks, reasoning: 'off', toolCalls: true },
      { toolNames: ['lookup_weather', 'lookup_time'] },
    ),
  };
  for (const [name, s] of Object.entries(scenarios)) {
    const outputs = pipelines.map((p) => verify(p, name, s));
    // A candidate that is faster because it sends something else is no candidate.
    if (outputs.some((o) => o !== outputs[0])) throw new Error(`normalizer scenario ${name}: the candidate's stream differs from the base's`);
  }
  const [own, candidate] = measureAll(pipelines, scenarios, options);
  if (own === undefined) throw new Error('no result');
  return candidate === undefined ? own : { ...own, candidate };
}

function print(label: string, result: NormalizerResult): void {
  console.log(label);
  for (const [name, s] of Object.entries(result.scenarios)) {
    console.log(`  ${name.padEnd(10)} ${Math.round(s.chunksPerSec).toLocaleString('en').padStart(12)} chunks/s  (${s.chunksPerStream} chunks per stream)`);
  }
  const st = result.plainStagesUs;
  console.log(
    `  plain, µs per chunk: decode ${st.decode.toFixed(2)}, readEvent ${st.readEvent.toFixed(2)}, ` +
      `normalize ${st.normalize.toFixed(2)}, encode ${st.encode.toFixed(2)}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options = readOptions(process.argv.slice(2), process.env);
  const result = await runNormalizerBench({
    seconds: options.microS,
    rounds: 5,
    chunks: options.chunks,
    from: options.svirFrom,
    candidateDist: options.candidate === undefined ? undefined : dirname(options.candidate),
  });
  print(options.svirFrom === 'src' ? 'sources' : 'dist/', result);
  if (result.candidate !== undefined) print(`candidate ${options.candidate ?? ''}`, result.candidate);
}
