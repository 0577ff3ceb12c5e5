/**
 * The template of the common text chunk (src/normalize/text-chunk-template.ts) is a memo: a chunk
 * read through a stream's template must read exactly as it does without one. Each case reads a
 * first chunk (which makes the template) and then another, once in the same stream and once in
 * a fresh one; the parts must be equal. The other chunks are the first with its text token
 * replaced by anything (valid JSON strings, escapes, quotes that end the token early, raw
 * control characters, other tokens), or unrelated chunks. Seeded, so deterministic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamContext } from '../../src/normalize/stream-context.js';
import type { Part } from '../../src/normalize/parts.js';
import { readOpenAIEvent } from '../../src/normalize/read-openai-event.js';
import { fillTextTemplate, makeTextTemplate } from '../../src/normalize/text-chunk-template.js';
import { fixtureContext } from '../helpers/replay-fixture.js';

const MARK = '"@@text@@"';

const context = (): StreamContext => fixtureContext({ backend: 'b' });
const read = (data: string, ctx: StreamContext): Part[] => readOpenAIEvent({ event: undefined, data }, ctx);

/** Reads `first` then `next` in one stream, and `next` alone in another: the two reads of `next`. */
function both(first: string, next: string): { templated: Part[]; fresh: Part[] } {
  const ctx = context();
  read(first, ctx);
  read(first, ctx);
  return { templated: read(next, ctx), fresh: read(next, context()) };
}

const key = fc.constantFrom('content', 'reasoning_content', 'reasoning', 'refusal');
const word = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom(' the', '<think>', 'a\nb', '"', '\\', '\u2028', 'é'));

/** A chunk as servers write it, with MARK where the text goes (and sometimes text beside it). */
const shape = fc.record({
  key,
  id: fc.constantFrom('chatcmpl-1', '', 'a"content":"x'),
  created: fc.constantFrom(1_760_000_000, 0),
  extra: fc.constantFrom(
    {},
    { system_fingerprint: 'fp' },
    { usage: null },
    { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } },
    { note: { content: 'same' } },
  ),
  other: fc.constantFrom({}, { reasoning: null }, { content: '' }, { role: 'assistant' }, { refusal: 'no' }, { tool_calls: null }),
  finish: fc.constantFrom(null, 'stop'),
  logprobs: fc.constantFrom(null, { content: [] }),
  spaces: fc.boolean(),
});

type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;

function chunkText(s: Shape, text: string): string {
  const body = {
    id: s.id,
    object: 'chat.completion.chunk',
    created: s.created,
    model: 'm',
    ...s.extra,
    choices: [{ index: 0, delta: { ...s.other, [s.key]: '@@text@@' }, logprobs: s.logprobs, finish_reason: s.finish }],
  };
  const json = JSON.stringify(body, null, s.spaces ? 1 : undefined);
  return json.replace(MARK, text);
}

/** What may stand where the text token stood: mostly strings, some of them not one token. */
const token = fc.oneof(
  { weight: 6, arbitrary: word.map((w) => JSON.stringify(w)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }).map((raw) => `"${raw}"`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '""',
      '"\\u0041\\n\\""',
      '"a\\"',
      '"a\\\\"',
      '"a","content":"b"',
      '"a"," x":"b"',
      '"\\ud800"',
      '"\\x41"',
      '"a\u0001b"',
      '"a\\\\\\"b"',
      'null',
      '42',
      '{}',
      '"a"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2},"x":[{"y":"z"',
    ),
  },
);

describe('the common text chunk template', () => {
  it('reads a chunk with its text token replaced by anything as it reads without a template', () => {
    fc.assert(
      fc.property(shape, word, token, (s, firstText, next) => {
        const first = chunkText(s, JSON.stringify(firstText));
        const { templated, fresh } = both(first, chunkText(s, next));
        expect(templated).toEqual(fresh);
      }),
      { seed: 15, numRuns: 1500 },
    );
  });

  it('reads unrelated chunks after a template as it reads them without one', () => {
    fc.assert(
      fc.property(shape, shape, word, word, (a, b, textA, textB) => {
        const { templated, fresh } = both(chunkText(a, JSON.stringify(textA)), chunkText(b, JSON.stringify(textB)));
        expect(templated).toEqual(fresh);
      }),
      { seed: 16, numRuns: 500 },
    );
  });

  it('takes the text of a chunk that fits, and nothing else', () => {
    const first = '{"id":"c","choices":[{"index":0,"delta":{"content":"one"},"finish_reason":null}]}';
    const template = makeTextTemplate(first, 'content', 'one', 'content', undefined, (probe) => {
      const parsed: unknown = JSON.parse(probe);
      return JSON.stringify(parsed).includes('"content":"svir') ? 'svir\u0001template\u0002probe' : undefined;
    });
    expect(template).toBeDefined();
    if (template === undefined) return;
    expect(fillTextTemplate(template, first.replace('"one"', '" two"'))).toBe(' two');
    expect(fillTextTemplate(template, first.replace('"one"', '"a\\nb\\u00e9"'))).toBe('a\nbé');
    expect(fillTextTemplate(template, first.replace('"one"', '""'))).toBe('');
    // Not one string token, or not the same bytes around it.
    expect(fillTextTemplate(template, first.replace('"one"', '"a","x":"b"'))).toBeUndefined();
    expect(fillTextTemplate(template, first.replace('"one"', '"a\\"'))).toBeUndefined();
    expect(fillTextTemplate(template, first.replace('"one"', '"a\u0000"'))).toBeUndefined();
    expect(fillTextTemplate(template, first.replace('"one"', 'null'))).toBeUndefined();
    expect(fillTextTemplate(template, first.replace('"c"', '"d"'))).toBeUndefined();
    expect(fillTextTemplate(template, ` ${first}`)).toBeUndefined();
  });

  it('is not made when the check does not find the text in the token it found', () => {
    // A key "content" inside another object comes first: the probe reads the delta unchanged.
    const first = '{"note":{"content":"one"},"choices":[{"index":0,"delta":{"content":"one"}}]}';
    expect(makeTextTemplate(first, 'content', 'one', 'content', undefined, () => 'one')).toBeUndefined();
  });

  it('reads a stream the same with templates as without, chunk by chunk', () => {
    const ctx = context();
    const chunks = [' The', ' quick', '', ' "fox"', '\\', ' é\u2028', ' end'].map(
      (text) => `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}`,
    );
    const reads = chunks.map((data) => read(data, ctx));
    reads.forEach((parts, i) => expect(parts).toEqual(read(chunks[i] ?? '', context())));
    // The first chunk made the template and the others went through it: it hands out that
    // chunk's identity part itself, where a full read makes a new one each time.
    for (const parts of reads.slice(1)) expect(parts[0]).toBe(reads[0]?.[0]);
    expect(read(chunks[0] ?? '', context())[0]).not.toBe(read(chunks[0] ?? '', context())[0]);
  });
});
