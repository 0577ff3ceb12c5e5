/**
 * Micro-benchmark of svir's per-chunk path alone, no I/O: SSE decoder → adapter.readEvent →
 * normalizer → SSE encoder, on one core, over pre-built upstream bytes fed one event per read
 * (as a token-paced server delivers them). Reports upstream chunks per second for:
 *   plain      a 64-chunk answer (the target: ≥ 250,000 chunks/s)
 *   reasoning  reasoning as `<think>` tags inside content, the markers split across chunks
 *   tools      two tool calls whose names and arguments arrive interleaved
 *
 * Standalone: `node --import tsx bench/normalizer.ts [--micro 2] [--chunks 64]`;
 * with `--cpu-prof` in front of `--import` for a profile of exactly this path.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { StreamContext } from '../src/adapters/adapter.js';
import * as adaptersSrc from '../src/adapters/index.js';
import type { CleanChunk } from '../src/normalize/clean-chunk.js';
import * as normalizerSrc from '../src/normalize/normalizer.js';
import * as decoderSrc from '../src/normalize/sse-decoder.js';
import * as encoderSrc from '../src/normalize/sse-encoder.js';
import { buildMockStream, type MockStreamOptions } from './mock-stream.js';
import { readOptions } from './options.js';
import { median } from './sequential.js';

export interface ScenarioResult {
  chunksPerSec: number;
  /** Upstream chunks (SSE events) in one stream. */
  chunksPerStream: number;
  /** Per round, chunks per second. */
  rounds: number[];
}

export interface NormalizerResult {
  scenarios: Record<'plain' | 'reasoning' | 'tools', ScenarioResult>;
  /** The plain stream, priced per stage: microseconds per upstream chunk (medians over rounds). */
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
  reasoningField: 'reasoning_content',
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
 * The modules under test: the sources (through tsx), or with `--svir-from dist` the build, whose
 * profile then names the lines users run. The build is the compiled form of the same modules.
 */
interface Modules {
  getAdapter: typeof adaptersSrc.getAdapter;
  createNormalizer: typeof normalizerSrc.createNormalizer;
  createSseDecoder: typeof decoderSrc.createSseDecoder;
  encodeChunk: typeof encoderSrc.encodeChunk;
}

async function loadModules(from: 'src' | 'dist'): Promise<Modules> {
  if (from === 'src') {
    return {
      getAdapter: adaptersSrc.getAdapter,
      createNormalizer: normalizerSrc.createNormalizer,
      createSseDecoder: decoderSrc.createSseDecoder,
      encodeChunk: encoderSrc.encodeChunk,
    };
  }
  const dist = (path: string): string => new URL(`../dist/${path}`, import.meta.url).href;
  const adapters: typeof adaptersSrc = await import(dist('adapters/index.js'));
  const normalizer: typeof normalizerSrc = await import(dist('normalize/normalizer.js'));
  const decoder: typeof decoderSrc = await import(dist('normalize/sse-decoder.js'));
  const encoder: typeof encoderSrc = await import(dist('normalize/sse-encoder.js'));
  return {
    getAdapter: adapters.getAdapter,
    createNormalizer: normalizer.createNormalizer,
    createSseDecoder: decoder.createSseDecoder,
    encodeChunk: encoder.encodeChunk,
  };
}

let { getAdapter, createNormalizer, createSseDecoder, encodeChunk } = await loadModules('src');
let adapter = getAdapter('openai');
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
function runStream(s: Scenario, depth: Depth): number {
  const decoder = createSseDecoder();
  const normalizer = createNormalizer(s.ctx, deps);
  let sink = 0;
  let done = false;
  for (const read of s.reads) {
    for (const event of decoder.feed(read)) {
      if (depth === Depth.Decode) {
        sink += event.data.length;
        continue;
      }
      const parts = adapter.readEvent(event, s.ctx);
      if (depth === Depth.Read) {
        sink += parts.length;
        continue;
      }
      const step = normalizer.push(parts);
      if (step.error !== undefined) throw step.error;
      if (step.done) done = true;
      if (depth === Depth.Normalize) sink += step.chunks.length;
      else for (const chunk of step.chunks) sink += encodeChunk(chunk).length;
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
 * tool calls come out whole.
 */
function verify(name: string, s: Scenario): void {
  const decoder = createSseDecoder();
  const normalizer = createNormalizer(s.ctx, deps);
  const chunks: CleanChunk[] = [];
  let done = false;
  for (const read of s.reads) {
    for (const event of decoder.feed(read)) {
      const step = normalizer.push(adapter.readEvent(event, s.ctx));
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
}

function measure(s: Scenario, seconds: number, depth = Depth.Encode): number {
  let streams = 0;
  let sink = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  let now = start;
  while (now < until) {
    // Batches of streams between clock reads, so reading the clock costs nothing measurable.
    for (let i = 0; i < 50; i++) sink += runStream(s, depth);
    streams += 50;
    now = performance.now();
  }
  if (sink === 0) throw new Error('the pipeline produced nothing');
  return (streams * s.events) / ((now - start) / 1000);
}

export async function runNormalizerBench(options: {
  seconds: number;
  rounds: number;
  chunks: number;
  from: 'src' | 'dist';
}): Promise<NormalizerResult> {
  ({ getAdapter, createNormalizer, createSseDecoder, encodeChunk } = await loadModules(options.from));
  adapter = getAdapter('openai');
  const scenarios = {
    plain: scenario({ chunks: options.chunks, reasoning: 'off', toolCalls: false }, {}),
    reasoning: scenario({ chunks: options.chunks, reasoning: 'tags', toolCalls: false }, { reasoningTags: 'auto' }),
    tools: scenario(
      { chunks: options.chunks, reasoning: 'off', toolCalls: true },
      { toolNames: ['lookup_weather', 'lookup_time'] },
    ),
  };
  for (const [name, s] of Object.entries(scenarios)) verify(name, s);
  // Warm-up, then rounds that take turns between scenarios.
  for (const s of Object.values(scenarios)) measure(s, Math.min(0.5, options.seconds));
  const rounds: Record<keyof typeof scenarios, number[]> = { plain: [], reasoning: [], tools: [] };
  const depths: Record<Depth.Decode | Depth.Read | Depth.Normalize, number[]> = { 1: [], 2: [], 3: [] };
  for (let r = 0; r < options.rounds; r++) {
    rounds.plain.push(measure(scenarios.plain, options.seconds));
    rounds.reasoning.push(measure(scenarios.reasoning, options.seconds));
    rounds.tools.push(measure(scenarios.tools, options.seconds));
    for (const depth of [Depth.Decode, Depth.Read, Depth.Normalize] as const) {
      depths[depth].push(measure(scenarios.plain, options.seconds / 2, depth));
    }
  }
  const usPerChunk = (perSec: number[]): number => 1e6 / median(perSec);
  const decode = usPerChunk(depths[Depth.Decode]);
  const read = usPerChunk(depths[Depth.Read]);
  const normalize = usPerChunk(depths[Depth.Normalize]);
  const all = usPerChunk(rounds.plain);
  const result = (name: keyof typeof scenarios): ScenarioResult => ({
    chunksPerSec: median(rounds[name]),
    chunksPerStream: scenarios[name].events,
    rounds: rounds[name],
  });
  return {
    scenarios: { plain: result('plain'), reasoning: result('reasoning'), tools: result('tools') },
    plainStagesUs: { decode, readEvent: read - decode, normalize: normalize - read, encode: all - normalize },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options = readOptions(process.argv.slice(2), process.env);
  const result = await runNormalizerBench({ seconds: options.microS, rounds: 3, chunks: options.chunks, from: options.svirFrom });
  for (const [name, s] of Object.entries(result.scenarios)) {
    console.log(`${name.padEnd(10)} ${Math.round(s.chunksPerSec).toLocaleString('en').padStart(12)} chunks/s  (${s.chunksPerStream} chunks per stream)`);
  }
  const st = result.plainStagesUs;
  console.log(
    `plain, µs per chunk: decode ${st.decode.toFixed(2)}, readEvent ${st.readEvent.toFixed(2)}, ` +
      `normalize ${st.normalize.toFixed(2)}, encode ${st.encode.toFixed(2)}`,
  );
}
