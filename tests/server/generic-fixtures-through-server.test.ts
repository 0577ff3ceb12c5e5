/**
 * Every generic golden fixture (tests/fixtures/generic, behind an `openai` backend) and every
 * Ollama one (tests/fixtures/ollama, behind an `ollama` backend), served by a fake upstream through the
 * real server, whole and at seeded split points: the client receives exactly the fixture's clean
 * chunks and `[DONE]`; a failure before any chunk is the error's own HTTP status; a failure after
 * one ends the stream with one error event; `stream: false` folds the same chunks or fails whole.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { foldChunks } from '../../src/normalize/fold-chunks.js';
import { expectCleanStream } from '../helpers/expect-clean-stream.js';
import { FIXTURE_NOW_MS, fixtureIds, loadFixtures, splitAtSeededOffsets, type Fixture } from '../helpers/replay-fixture.js';
import { errorCodeOf, postChat, sseData, startSvir, type SvirUnderTest } from './start-svir.js';

const FIXTURES: { fixture: Fixture; type: string; name: string }[] = (
  [
    ['generic', 'openai'],
    ['ollama', 'ollama'],
  ] as const
).flatMap(([dir, type]) =>
  loadFixtures(fileURLToPath(new URL(`../fixtures/${dir}`, import.meta.url))).map((fixture) => ({ fixture, type, name: `${dir}/${fixture.name}` })),
);
const SEEDS = [1, 2, 3];

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

async function serve(fixture: Fixture, type: string, pieces: readonly Uint8Array[]): Promise<SvirUnderTest> {
  const ctx = fixture.spec.ctx ?? {};
  const started = await startSvir({
    backend: {
      type,
      name: ctx.backend ?? 'fixture-backend',
      models: [ctx.model ?? 'client-model'],
      reasoningTags: ctx.reasoningTags ?? 'auto',
    },
    deps: { now: () => FIXTURE_NOW_MS, makeId: fixtureIds() },
  });
  started.upstream.chat({ kind: 'sse', pieces: [...pieces] });
  return started;
}

function requestFor(fixture: Fixture, stream: boolean): Record<string, unknown> {
  const ctx = fixture.spec.ctx ?? {};
  const request: Record<string, unknown> = {
    model: ctx.model ?? 'client-model',
    messages: [{ role: 'user', content: 'go' }],
    stream,
  };
  if (stream && ctx.includeUsage === true) request.stream_options = { include_usage: true };
  // The request decides what the normalizer reads: reasoning turned off, structured output.
  if (ctx.reasoningOff === true) request.reasoning_effort = 'none';
  if (ctx.structuredOutput === true) {
    request.response_format = { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } };
  }
  if (ctx.toolNames !== undefined && ctx.toolNames.length > 0) {
    request.tools = ctx.toolNames.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));
  }
  return request;
}

function statusOf(code: string): number {
  const entry = Object.entries(ERROR_CATALOGUE).find(([known]) => known === code);
  if (entry === undefined) throw new Error(`not a catalogue code: ${code}`);
  return entry[1].status;
}

const anyObject = z.looseObject({});

describe.each(FIXTURES)('fixture $name through the server', ({ fixture, type }) => {
  const { spec } = fixture;
  const cases: [string, () => Uint8Array[]][] = [
    ['whole', () => [fixture.bytes]],
    ...SEEDS.map((seed): [string, () => Uint8Array[]] => [`split, seed ${seed}`, () => splitAtSeededOffsets(fixture.bytes, seed)]),
  ];

  it.each(cases)('stream: true, %s', async (_name, split) => {
    svir = await serve(fixture, type, split());
    const res = await postChat(svir.url, requestFor(fixture, true));
    if (spec.error !== null && spec.chunks.length === 0) {
      expect(res.status).toBe(statusOf(spec.error.code));
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body: unknown = JSON.parse(res.text);
      expect(errorCodeOf(body)).toBe(spec.error.code);
      if (spec.error.messageIncludes !== undefined) expect(res.text).toContain(spec.error.messageIncludes);
      return;
    }
    expect(res.status).toBe(200);
    const data = sseData(res.text);
    if (spec.done) {
      expect(data.at(-1)).toBe('[DONE]');
      const chunks: CleanChunk[] = data.slice(0, -1).map((d) => JSON.parse(d));
      expect(chunks).toEqual(spec.chunks);
      expectCleanStream(chunks, { done: true, model: spec.ctx?.model ?? 'client-model' });
    } else {
      expect(data).not.toContain('[DONE]');
      const last: unknown = JSON.parse(data.at(-1) ?? '');
      expect(errorCodeOf(last)).toBe(spec.error?.code);
      expect(data.slice(0, -1).map((d) => JSON.parse(d))).toEqual(spec.chunks);
    }
  });

  it('stream: false, split', async () => {
    svir = await serve(fixture, type, splitAtSeededOffsets(fixture.bytes, 7));
    const res = await postChat(svir.url, requestFor(fixture, false));
    if (spec.error !== null) {
      expect(res.status).toBe(statusOf(spec.error.code));
      expect(errorCodeOf(JSON.parse(res.text))).toBe(spec.error.code);
      return;
    }
    expect(res.status).toBe(200);
    const chunks: CleanChunk[] = spec.chunks.map((chunk) => JSON.parse(JSON.stringify(chunk)));
    // The folded answer carries usage whether or not a streaming client would have asked.
    const folded = foldChunks(chunks, { reasoningField: 'reasoning_content' });
    const completion = anyObject.parse(JSON.parse(res.text));
    if (folded.usage === undefined) {
      // The fixture's client did not ask for usage; the folded answer has it when the server sent it.
      delete completion.usage;
    }
    expect(completion).toEqual(folded);
  });
});
