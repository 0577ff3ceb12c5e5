import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { createSseDecoder } from '../../src/normalize/sse-decoder.js';
import { createChunkEncoder, encodeComment, encodeDone, encodeErrorEvent } from '../../src/normalize/sse-encoder.js';
import { loadFixtures, runLoadedFixture } from '../helpers/replay-fixture.js';

const chunk: CleanChunk = {
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content: 'line one\nline two\r\n\u2028end' }, finish_reason: null }],
};

describe('sse-encoder', () => {
  it('writes one data line per event, LF ends, no event field', () => {
    const text = createChunkEncoder()(chunk);
    expect(text.startsWith('data: {')).toBe(true);
    expect(text.endsWith('}\n\n')).toBe(true);
    expect(text.slice(0, -2)).not.toMatch(/[\r\n]/);
    expect(text).not.toContain('event:');
  });

  it('round-trips through the decoder', () => {
    const decoder = createSseDecoder();
    const bytes = new TextEncoder().encode(createChunkEncoder()(chunk) + encodeComment('keepalive') + encodeDone());
    const events = [...decoder.feed(bytes), ...decoder.end()];
    expect(events.map((event) => event.event)).toEqual([undefined, undefined]);
    expect(JSON.parse(events[0]?.data ?? '')).toEqual(chunk);
    expect(events[1]?.data).toBe('[DONE]');
  });

  it('writes exactly what JSON.stringify gives, for every chunk of every fixture and odd identities', () => {
    const fixtures = loadFixtures(fileURLToPath(new URL('../fixtures/generic/', import.meta.url)));
    const chunks = fixtures.flatMap((fixture) => runLoadedFixture(fixture).chunks);
    const odd: CleanChunk[] = [
      { ...chunk, id: 'quote"and\\back\u2028', model: 'mödel "x"' },
      { ...chunk, choices: [{ index: 0, delta: { role: 'assistant' }, logprobs: { content: [{ token: 'a', logprob: -1 }] }, finish_reason: 'length' }] },
      { ...chunk, choices: [] },
      chunk,
      // One text under one key is written by hand: any key, any text, and what is not that.
      ...[
        { content: '' },
        { content: 'a"b\\c\n\u2028\ud800é' },
        { reasoning_content: ' x' },
        { 'my "field"': 'y' },
        { refusal: 'no' },
        { content: 'x', refusal: undefined },
        { content: undefined },
        { tool_calls: [] },
        {},
      ].map((delta): CleanChunk => ({ ...chunk, choices: [{ index: 0, delta, finish_reason: null }] })),
    ];
    expect(chunks.length).toBeGreaterThan(50);
    // One encoder per fixture's stream, as svir makes them, and one encoder given every chunk in
    // a row (identities changing from chunk to chunk).
    for (const fixture of fixtures) {
      const encode = createChunkEncoder();
      for (const each of runLoadedFixture(fixture).chunks) expect(encode(each)).toBe(`data: ${JSON.stringify(each)}\n\n`);
    }
    const encode = createChunkEncoder();
    for (const each of [...chunks, ...odd, ...chunks]) expect(encode(each)).toBe(`data: ${JSON.stringify(each)}\n\n`);
  });

  it('writes what JSON.stringify gives for chunks of many streams taking turns (ids shared or not), each with its encoder or all through one', () => {
    const streams = Array.from({ length: 300 }, (_, i) => ({
      // Every third stream shares its id with the one before, with another created or model.
      id: `chatcmpl-${i - (i % 3 === 2 ? 1 : 0)}`,
      created: 1_760_000_000 + (i % 2),
      model: i % 5 === 0 ? 'other' : 'm',
    }));
    const encoders = streams.map(() => createChunkEncoder());
    const shared = createChunkEncoder();
    for (let turn = 0; turn < 3; turn++) {
      for (const [i, identity] of streams.entries()) {
        const each: CleanChunk = { ...chunk, ...identity, choices: [{ index: 0, delta: { content: `t${turn}` }, finish_reason: null }] };
        expect(encoders[i]?.(each)).toBe(`data: ${JSON.stringify(each)}\n\n`);
        expect(shared(each)).toBe(`data: ${JSON.stringify(each)}\n\n`);
      }
    }
  });

  it('writes what JSON.stringify gives when the one text key changes within a stream and between streams', () => {
    const keys = ['reasoning_content', 'content', 'my "field"', 'refusal', 'content', 'role'];
    const encoders = { a: createChunkEncoder(), b: createChunkEncoder() };
    const shared = createChunkEncoder();
    for (let turn = 0; turn < 12; turn++) {
      for (const id of ['a', 'b'] as const) {
        const key = keys[(turn + (id === 'b' ? 1 : 0)) % keys.length] ?? 'content';
        const finish = turn % 5 === 4 ? 'stop' : null;
        const each: CleanChunk = { ...chunk, id, choices: [{ index: 0, delta: { [key]: `t${turn}"\\` }, finish_reason: finish }] };
        expect(encoders[id](each)).toBe(`data: ${JSON.stringify(each)}\n\n`);
        expect(shared(each)).toBe(`data: ${JSON.stringify(each)}\n\n`);
      }
    }
  });

  it('writes [DONE]', () => {
    expect(encodeDone()).toBe('data: [DONE]\n\n');
  });

  it('writes the error event in the one error shape', () => {
    const body = new SvirError('upstream_error', { message: 'backend "x" failed inside the stream: boom' }).toBody();
    expect(encodeErrorEvent(body)).toBe(
      'data: {"error":{"message":"backend \\"x\\" failed inside the stream: boom","type":"upstream_error","param":null,"code":"upstream_error"}}\n\n',
    );
  });

  it('writes comments on one line', () => {
    expect(encodeComment('keepalive')).toBe(': keepalive\n\n');
    expect(encodeComment('a\r\nb\nc')).toBe(': a b c\n\n');
  });
});
