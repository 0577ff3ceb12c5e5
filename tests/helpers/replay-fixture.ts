/**
 * Replays upstream bytes through the pure stream path the server layer drives:
 * SSE decoder → an adapter's `readEvent` → normalizer, and reports the clean chunks, the error
 * and whether the stream completed. Deterministic: ids are counters and the clock is fixed.
 *
 * Golden fixtures are pairs in one folder: `<name>.sse` (the upstream bytes, exactly as a server
 * would send them) and `<name>.json` (a `FixtureSpec`: the stream context and the expected clean
 * output). `splitAtSeededOffsets` cuts the same bytes at seeded random offsets so a test can
 * check that the output does not depend on where reads end.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { z } from 'zod';
import type { IdKind } from '../../src/ids/create-id-maker.js';
import type { StreamContext } from '../../src/normalize/stream-context.js';
import { createStreamMemo } from '../../src/normalize/stream-memo.js';
import { SvirError } from '../../src/errors.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { createNormalizer, type NormalizerDeps } from '../../src/normalize/normalizer.js';
import type { Part, SseEvent } from '../../src/normalize/parts.js';
import { readOpenAIEvent } from '../../src/normalize/read-openai-event.js';
import { createSseDecoder } from '../../src/normalize/sse-decoder.js';
import { seededRandom } from '../../bench/seeded-random.js';
import { cutAt } from './cut-at.js';

export type ReadEvent = (event: SseEvent, ctx: StreamContext) => Part[];

export interface FixtureOutcome {
  /** Every clean chunk the normalizer gave, in order. */
  chunks: CleanChunk[];
  /** The error that ended the stream, from the decoder or the normalizer; null if none. */
  error: SvirError | null;
  /** The normalizer saw the upstream's `[DONE]`: the server would send `[DONE]` too. */
  done: boolean;
}

export interface RunFixtureOptions {
  /** The adapter's reader; default the generic OpenAI reader. */
  readEvent?: ReadEvent;
  /** Overrides of the default fixture context (see fixtureContext). */
  ctx?: Partial<StreamContext>;
  deps?: NormalizerDeps;
  maxLineBytes?: number;
}

/** The context fixtures run in unless they say otherwise. */
export function fixtureContext(overrides: Partial<StreamContext> = {}): StreamContext {
  return {
    model: 'client-model',
    backend: 'fixture-backend',
    toolNames: [],
    includeUsage: false,
    logprobs: false,
    structuredOutput: false,
    reasoningTags: 'auto',
    reasoningOff: false,
    reasoningField: 'reasoning_content',
    memo: createStreamMemo(),
    ...overrides,
  };
}

/** Fixed clock: created = 1750000000. */
export const FIXTURE_NOW_MS = 1_750_000_000_000;

/**
 * Counters instead of random ids, one count per kind: `chatcmpl-svir-1`, `call_svir_1`,
 * `call_svir_2`, `request-1`, ... (the ids the fixtures were written with; a server's makeId too).
 */
export function fixtureIds(): (kind: IdKind) => string {
  const counts = { completion: 0, call: 0, request: 0 };
  return (kind) => {
    counts[kind] += 1;
    if (kind === 'completion') return `chatcmpl-svir-${counts[kind]}`;
    if (kind === 'call') return `call_svir_${counts[kind]}`;
    return `request-${counts[kind]}`;
  };
}

/** The normalizer's deps for fixtures: fixtureIds and the fixed clock. */
export function fixtureDeps(): NormalizerDeps {
  return { makeId: fixtureIds(), now: () => FIXTURE_NOW_MS };
}

const utf8 = new TextEncoder();

/**
 * Runs upstream bytes (one buffer, a string, or the pieces one read each) through the path the
 * server drives: stops at the first error or at `[DONE]`, and ends the stream when input runs out.
 */
export function runFixture(
  input: Uint8Array | string | readonly Uint8Array[],
  options: RunFixtureOptions = {},
): FixtureOutcome {
  const pieces = typeof input === 'string' ? [utf8.encode(input)] : input instanceof Uint8Array ? [input] : input;
  const readEvent = options.readEvent ?? readOpenAIEvent;
  const ctx = fixtureContext(options.ctx);
  const decoder = createSseDecoder(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
  const normalizer = createNormalizer(ctx, options.deps ?? fixtureDeps());
  const chunks: CleanChunk[] = [];

  /** Pushes decoded events; returns an outcome once the stream is over. */
  const pushAll = (events: readonly SseEvent[]): FixtureOutcome | undefined => {
    for (const event of events) {
      const step = normalizer.push(readEvent(event, ctx));
      chunks.push(...step.chunks);
      if (step.error !== undefined) return { chunks, error: step.error, done: false };
      if (step.done) return { chunks, error: null, done: true };
    }
    return undefined;
  };

  try {
    for (const piece of pieces) {
      const over = pushAll(decoder.feed(piece));
      if (over !== undefined) return over;
    }
    const over = pushAll(decoder.end());
    if (over !== undefined) return over;
  } catch (error) {
    if (error instanceof SvirError) return { chunks, error, done: false };
    throw error;
  }
  const last = normalizer.end();
  chunks.push(...last.chunks);
  return { chunks, error: last.error ?? null, done: last.done };
}

/**
 * Cuts `bytes` into pieces at offsets drawn from `seed`: a few uniform random offsets, plus one
 * inside a multi-byte UTF-8 character, one inside a JSON string, one inside a `data:` prefix and
 * one between a CR and its LF, wherever the input has such places. Same seed, same pieces.
 */
export function splitAtSeededOffsets(bytes: Uint8Array, seed: number): Uint8Array[] {
  if (bytes.length < 2) return [bytes];
  const random = seededRandom(seed);
  const pick = (candidates: number[]): void => {
    const chosen = candidates[Math.floor(random() * candidates.length)];
    if (chosen !== undefined) cuts.add(chosen);
  };
  const cuts = new Set<number>();
  const count = 1 + Math.floor(random() * Math.min(24, bytes.length / 4));
  for (let i = 0; i < count; i++) cuts.add(1 + Math.floor(random() * (bytes.length - 1)));

  const insideCharacter: number[] = [];
  const insideString: number[] = [];
  const insidePrefix: number[] = [];
  const insideCrLf: number[] = [];
  let inString = false;
  for (let i = 1; i < bytes.length; i++) {
    const byte = bytes[i] ?? 0;
    const previous = bytes[i - 1] ?? 0;
    if ((byte & 0xc0) === 0x80) insideCharacter.push(i); // a continuation byte: cut before it
    if (previous === 0x22 /* " */ && bytes[i - 2] !== 0x5c /* \ */) inString = !inString;
    if (inString && previous !== 0x22) insideString.push(i);
    if (previous === 0x0d && byte === 0x0a) insideCrLf.push(i);
    if (byte === 0x61 /* a */ && previous === 0x64 /* d */ && (i < 2 || bytes[i - 2] === 0x0a || bytes[i - 2] === 0x0d)) {
      insidePrefix.push(i, i + 2);
    }
  }
  pick(insideCharacter);
  pick(insideString);
  pick(insidePrefix.filter((offset) => offset < bytes.length));
  pick(insideCrLf);

  return cutAt(bytes, [...cuts].sort((a, b) => a - b));
}

const reasoningMarkersSchema = z.strictObject({ open: z.string().min(1), close: z.string().min(1) });

/** The stream context a fixture may set (the rest is the test default). */
const fixtureCtxSchema = z.strictObject({
  model: z.string(),
  backend: z.string(),
  toolNames: z.array(z.string()),
  includeUsage: z.boolean(),
  logprobs: z.boolean(),
  structuredOutput: z.boolean(),
  reasoningTags: z.enum(['auto', 'open', 'off']),
  // The marker pairs the adapter names (the llama.cpp recordings carry llamacpp's).
  reasoningMarkers: z.tuple([reasoningMarkersSchema], reasoningMarkersSchema),
  reasoningOff: z.boolean(),
  reasoningField: z.string(),
});

/** The context keys a fixture's `.json` may hold (the recorder keeps these of a live stream's). */
export const FIXTURE_CTX_KEYS: readonly string[] = Object.keys(fixtureCtxSchema.shape);

const fixtureSpecSchema = z.strictObject({
  /** What the fixture shows, for the test's name. */
  description: z.string().min(1),
  /** Context overrides for this stream (tools declared, usage asked, think-tag mode, ...). */
  ctx: fixtureCtxSchema.partial().optional(),
  /** The clean chunks expected, exactly (compared deeply). */
  chunks: z.array(z.unknown()),
  /** The error expected to end the stream, or null. */
  error: z.strictObject({ code: z.string(), messageIncludes: z.string().optional() }).nullable(),
  done: z.boolean(),
});

/** What `<name>.json` next to `<name>.sse` holds. */
export type FixtureSpec = z.infer<typeof fixtureSpecSchema>;

export interface Fixture {
  name: string;
  bytes: Uint8Array;
  spec: FixtureSpec;
}

/** Every `<name>.sse` + `<name>.json` pair in `dir`, sorted by name; a bad spec fails loudly. */
export function loadFixtures(dir: string): Fixture[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sse'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.sse'.length);
      const bytes = new Uint8Array(readFileSync(join(dir, file)));
      const parsed = fixtureSpecSchema.safeParse(JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')));
      if (!parsed.success) throw new Error(`fixture ${name}.json: ${z.prettifyError(parsed.error)}`);
      return { name, bytes, spec: parsed.data };
    });
}

/** Runs a fixture's bytes (whole, or the given pieces) in its own context. */
export function runLoadedFixture(
  fixture: Fixture,
  pieces: readonly Uint8Array[] = [fixture.bytes],
  options: Omit<RunFixtureOptions, 'ctx'> = {},
): FixtureOutcome {
  return runFixture(pieces, { ...options, ctx: fixture.spec.ctx ?? {} });
}

/** Asserts an outcome is the fixture's: the chunks exactly, the error code (and words), done. */
export function expectOutcome(outcome: FixtureOutcome, spec: FixtureSpec): void {
  expect(outcome.chunks).toEqual(spec.chunks);
  expect(outcome.error === null ? null : outcome.error.code).toEqual(spec.error === null ? null : spec.error.code);
  if (spec.error?.messageIncludes !== undefined) expect(outcome.error?.message ?? '').toContain(spec.error.messageIncludes);
  expect(outcome.done).toEqual(spec.done);
}
