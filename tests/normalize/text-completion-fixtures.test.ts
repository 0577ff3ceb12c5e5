/**
 * Legacy Completions streams as each server sends them (`tests/fixtures/completions/`), through
 * that type's completions reader, the one normalizer and the `text_completion` conversion:
 * whole, and cut at seeded random offsets (inside UTF-8 characters, JSON strings, `data:`
 * prefixes), with the same clean output. Also the fold for `stream: false`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getAdapter } from '../../src/adapters/index.js';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { foldTextCompletion } from '../../src/normalize/fold-text-completion.js';
import { encodeTextCompletionChunk } from '../../src/normalize/sse-encoder.js';
import { toTextCompletionChunk } from '../../src/normalize/to-text-completion-chunk.js';
import { runFixture, splitAtSeededOffsets, type FixtureOutcome } from '../helpers/replay-fixture.js';

const SEEDS = 30;
const DIR = join(import.meta.dirname, '..', 'fixtures', 'completions');

const specSchema = z.strictObject({
  description: z.string().min(1),
  type: z.enum(BACKEND_TYPES),
  ctx: z.strictObject({ includeUsage: z.boolean(), logprobs: z.boolean() }).partial().optional(),
  chunks: z.array(z.unknown()),
  error: z.strictObject({ code: z.string(), messageIncludes: z.string().optional() }).nullable(),
  done: z.boolean(),
});

const fixtures = readdirSync(DIR)
  .filter((file) => file.endsWith('.sse'))
  .sort()
  .map((file) => {
    const name = file.slice(0, -'.sse'.length);
    return { name, bytes: new Uint8Array(readFileSync(join(DIR, file))), spec: specSchema.parse(JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'))) };
  });

type Spec = z.infer<typeof specSchema>;

function run(spec: Spec, pieces: readonly Uint8Array[]): FixtureOutcome {
  return runFixture(pieces, {
    readEvent: getAdapter(spec.type).readCompletionEvent,
    ctx: { reasoningTags: 'off', includeUsage: false, logprobs: false, ...spec.ctx },
  });
}

function expectText(outcome: FixtureOutcome, spec: Spec): void {
  const chunks = outcome.chunks.map(toTextCompletionChunk).filter((chunk) => chunk !== undefined);
  expect(chunks).toEqual(spec.chunks);
  expect(outcome.done).toBe(spec.done);
  if (spec.error === null) expect(outcome.error).toBeNull();
  else {
    expect(outcome.error?.code).toBe(spec.error.code);
    if (spec.error.messageIncludes !== undefined) expect(outcome.error?.message).toContain(spec.error.messageIncludes);
  }
}

describe('legacy completions fixtures', () => {
  it('has a recorded stream for most backend types', () => {
    expect(new Set(fixtures.map((fixture) => fixture.spec.type)).size).toBeGreaterThanOrEqual(6);
  });

  for (const fixture of fixtures) {
    it(`${fixture.name}: ${fixture.spec.description}`, () => {
      expectText(run(fixture.spec, [fixture.bytes]), fixture.spec);
    });

    it(`${fixture.name}: same output at ${SEEDS} seeded split points`, () => {
      for (let seed = 1; seed <= SEEDS; seed++) expectText(run(fixture.spec, splitAtSeededOffsets(fixture.bytes, seed)), fixture.spec);
    });
  }
});

describe('text_completion encoding and fold', () => {
  const spec = (name: string): Spec => {
    const found = fixtures.find((fixture) => fixture.name === name);
    if (found === undefined) throw new Error(`no fixture ${name}`);
    return found.spec;
  };
  const bytesOf = (name: string): Uint8Array => fixtures.find((fixture) => fixture.name === name)?.bytes ?? new Uint8Array();

  it('encodes one data event per chunk that says something, and nothing for the opening role', () => {
    const outcome = run(spec('llamacpp-usage'), [bytesOf('llamacpp-usage')]);
    const events = outcome.chunks.map(encodeTextCompletionChunk);
    expect(events.every((event) => event === '' || (event.startsWith('data: {"id":') && event.endsWith('}\n\n')))).toBe(true);
    expect(events.filter((event) => event !== '')).toHaveLength(5);
    const roleOnly = { id: 'x', object: 'chat.completion.chunk' as const, created: 1, model: 'm', choices: [{ index: 0 as const, delta: { role: 'assistant' as const }, finish_reason: null }] };
    expect(encodeTextCompletionChunk(roleOnly)).toBe('');
  });

  it('folds a stream into one text_completion with the joined text, the finish, usage and joined logprobs', () => {
    const llama = foldTextCompletion(run(spec('llamacpp-usage'), [bytesOf('llamacpp-usage')]).chunks, { model: 'client-model' });
    expect(llama).toEqual({
      id: 'chatcmpl-PequBOBtIwGUryBBXDzzwshpLmwen4SU',
      object: 'text_completion',
      created: 1796140916,
      model: 'client-model',
      choices: [{ index: 0, text: ' Un café ☕ chaud', finish_reason: 'length' }],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } },
    });
    const vllm = foldTextCompletion(run(spec('vllm-logprobs-length'), [bytesOf('vllm-logprobs-length')]).chunks, { model: 'client-model' });
    expect(vllm.choices).toEqual([
      {
        index: 0,
        text: ' one, two',
        finish_reason: 'length',
        logprobs: { tokens: [' one,', ' two'], token_logprobs: [-0.5, -0.5], top_logprobs: [{ ' one,': -0.5 }, { ' two': -0.5 }], text_offset: [5, 10] },
      },
    ]);
  });
});
