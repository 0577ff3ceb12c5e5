import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { createSseDecoder } from '../../src/normalize/sse-decoder.js';
import type { SseEvent } from '../../src/normalize/parts.js';
import { cutAnywhere } from '../helpers/cut-at.js';

const utf8 = new TextEncoder();

/** Feeds the pieces one by one and ends the stream: every event the decoder gave, in order. */
function decode(pieces: (string | Uint8Array)[], maxLineBytes?: number): SseEvent[] {
  const decoder = createSseDecoder(maxLineBytes === undefined ? {} : { maxLineBytes });
  const events: SseEvent[] = [];
  for (const piece of pieces) events.push(...decoder.feed(typeof piece === 'string' ? utf8.encode(piece) : piece));
  events.push(...decoder.end());
  return events;
}

/** Every way to cut `bytes` in two, plus byte by byte. */
function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const ways: Uint8Array[][] = [];
  for (let cut = 0; cut <= bytes.length; cut++) ways.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  ways.push(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
  return ways;
}

describe('createSseDecoder framing', () => {
  it('reads LF, CRLF and CR line ends alike', () => {
    const expected = [
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: '[DONE]' },
    ];
    expect(decode(['data: {"a":1}\n\ndata: [DONE]\n\n'])).toEqual(expected);
    expect(decode(['data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n'])).toEqual(expected);
    expect(decode(['data: {"a":1}\r\rdata: [DONE]\r\r'])).toEqual(expected);
    expect(decode(['data: {"a":1}\r\n\ndata: [DONE]\n\r\n'])).toEqual(expected);
  });

  it('keeps a CRLF pair whole when a read ends between CR and LF', () => {
    const bytes = utf8.encode('data: one\r\n\r\ndata: two\r\n\r\n');
    for (const pieces of everySplit(bytes)) {
      expect(decode(pieces)).toEqual([
        { event: undefined, data: 'one' },
        { event: undefined, data: 'two' },
      ]);
    }
  });

  it('joins several data lines of one event with LF', () => {
    expect(decode(['data: {"a":\ndata: 1}\n\n'])).toEqual([{ event: undefined, data: '{"a":\n1}' }]);
    expect(decode(['data:x\r\ndata:  y\r\ndata:\r\n\r\n'])).toEqual([{ event: undefined, data: 'x\n y\n' }]);
  });

  it('takes one space after the colon off, and only one', () => {
    expect(decode(['data:no-space\n\ndata:  two-spaces\n\n'])).toEqual([
      { event: undefined, data: 'no-space' },
      { event: undefined, data: ' two-spaces' },
    ]);
  });

  it('swallows comments, id:, retry: and unknown fields', () => {
    const stream =
      ': keepalive 10/200\n\n' +
      ':ping\n' +
      'id: 42\n' +
      'retry: 3000\n' +
      'retry: soon\n' +
      'foo: bar\n' +
      'data: {"x":1}\n\n' +
      'id: 43\n\n';
    expect(decode([stream])).toEqual([{ event: undefined, data: '{"x":1}' }]);
  });

  it('reads `event: message` as no event type and keeps `event: error`', () => {
    expect(
      decode(['event: message\ndata: a\n\nevent: error\ndata: {"error":{"message":"boom"}}\n\nevent:\ndata: c\n\n']),
    ).toEqual([
      { event: undefined, data: 'a' },
      { event: 'error', data: '{"error":{"message":"boom"}}' },
      { event: undefined, data: 'c' },
    ]);
  });

  it('forgets the event type once its event is dispatched', () => {
    expect(decode(['event: error\ndata: a\n\ndata: b\n\n'])).toEqual([
      { event: 'error', data: 'a' },
      { event: undefined, data: 'b' },
    ]);
  });

  it('dispatches nothing for an event without data lines', () => {
    expect(decode(['event: error\n\n: only a comment\n\n\n\n'])).toEqual([]);
  });

  it('returns the events a read completes, not later ones', () => {
    const decoder = createSseDecoder();
    expect(decoder.feed(utf8.encode('data: a\n\ndata: b'))).toEqual([{ event: undefined, data: 'a' }]);
    expect(decoder.feed(utf8.encode('\n'))).toEqual([]);
    expect(decoder.feed(utf8.encode('\n'))).toEqual([{ event: undefined, data: 'b' }]);
    expect(decoder.end()).toEqual([]);
  });
});

describe('createSseDecoder at the end of the body', () => {
  it('dispatches an event that lacks its blank line or its last line end', () => {
    expect(decode(['data: a\n\ndata: b\n'])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
    expect(decode(['data: a\n\ndata: b'])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
    expect(decode(['data: a\r'])).toEqual([{ event: undefined, data: 'a' }]);
    expect(decode(['data: a\r\r'])).toEqual([{ event: undefined, data: 'a' }]);
    expect(decode(['data: a\rdata: b'])).toEqual([{ event: undefined, data: 'a\nb' }]);
  });

  it('ends cleanly on an empty body', () => {
    expect(decode([])).toEqual([]);
    expect(decode([new Uint8Array(0)])).toEqual([]);
  });
});

describe('createSseDecoder and UTF-8', () => {
  it('keeps characters whole when a read ends inside one', () => {
    const text = 'data: {"t":"héllo 世界 🦀 ok"}\n\n';
    const bytes = utf8.encode(text);
    for (const pieces of everySplit(bytes)) {
      expect(decode(pieces)).toEqual([{ event: undefined, data: '{"t":"héllo 世界 🦀 ok"}' }]);
    }
  });

  it('drops a byte-order mark at the start', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode('data: a\n\n')]);
    for (const pieces of everySplit(bytes)) expect(decode(pieces)).toEqual([{ event: undefined, data: 'a' }]);
  });

  it('reads invalid UTF-8 as replacement characters instead of failing', () => {
    const bytes = new Uint8Array([...utf8.encode('data: a'), 0xff, 0xc3, ...utf8.encode('\n\ndata: b'), 0xe4, 0xb8]);
    expect(decode([bytes])).toEqual([
      { event: undefined, data: 'a\ufffd\ufffd' },
      { event: undefined, data: 'b\ufffd' },
    ]);
  });
});

describe('createSseDecoder line limit', () => {
  function expectLineError(run: () => unknown): void {
    let caught: unknown;
    try {
      run();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvirError);
    const error = caught as SvirError;
    expect(error.code).toBe('upstream_error');
    expect(error.source).toBe('upstream');
    expect(error.message).toMatch(/longer than 16 bytes/);
  }

  it('accepts a line of exactly the limit, in any split', () => {
    const line = `data: ${'x'.repeat(10)}`; // 16 bytes
    for (const pieces of everySplit(utf8.encode(`${line}\n\n${line}`))) {
      expect(decode(pieces, 16)).toHaveLength(2);
    }
  });

  it('throws on a line one byte over the limit, however it is split', () => {
    const stream = `data: a\n\ndata: ${'x'.repeat(11)}\n\ndata: b\n\n`;
    for (const pieces of everySplit(utf8.encode(stream))) expectLineError(() => decode(pieces, 16));
  });

  it('counts bytes, not characters', () => {
    // 6 + 4 × 3 bytes = 18 bytes in 10 characters.
    expectLineError(() => decode(['data: 世界世界\n\n'], 16));
  });

  it('throws before the rest of an endless line arrives, and keeps failing', () => {
    const decoder = createSseDecoder({ maxLineBytes: 16 });
    expect(decoder.feed(utf8.encode('data: 0123456789'))).toEqual([]);
    expectLineError(() => decoder.feed(utf8.encode('x')));
    expectLineError(() => decoder.feed(utf8.encode('\n\n')));
    expectLineError(() => decoder.end());
  });

  it('bounds an event made of many data lines too', () => {
    const decoder = createSseDecoder({ maxLineBytes: 16 });
    let caught: unknown;
    try {
      for (let i = 0; i < 20; i++) decoder.feed(utf8.encode('data: 0123456789\n'));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvirError);
    expect((caught as SvirError).code).toBe('upstream_error');
  });

  it('has an 8 MiB default', () => {
    const decoder = createSseDecoder();
    const big = new Uint8Array(8 * 1024 * 1024).fill(0x61);
    expect(decoder.feed(big)).toEqual([]);
    expect(() => decoder.feed(utf8.encode('a'))).toThrow(SvirError);
  });
});

describe('createSseDecoder on random input (fast-check, fixed seed)', () => {
  const alphabet = ['d', 'a', 't', ':', ' ', '\n', '\r', 'e', 'v', 'n', 'i', 'r', 'y', '{', '}', '"', 'é', '🦀'];
  const sseLike = fc
    .array(fc.constantFrom(...alphabet), { maxLength: 200 })
    .map((chars) => utf8.encode(chars.join('')));

  it('never throws on random bytes except the line-limit SvirError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(300), { maxLength: 6 }), (bytes, cuts) => {
        const pieces = cutAnywhere(bytes, cuts);
        try {
          decode(pieces, 64);
        } catch (error) {
          expect(error).toBeInstanceOf(SvirError);
          expect((error as SvirError).code).toBe('upstream_error');
        }
      }),
      { seed: 20260922, numRuns: 400 },
    );
  });

  it('never throws on random SSE-like text under the default limit', () => {
    fc.assert(
      fc.property(sseLike, fc.array(fc.nat(400), { maxLength: 6 }), (bytes, cuts) => {
        decode(cutAnywhere(bytes, cuts));
      }),
      { seed: 7, numRuns: 400 },
    );
  });

  it('gives the same events however SSE-like text is split', () => {
    fc.assert(
      fc.property(sseLike, fc.array(fc.nat(400), { maxLength: 8 }), (bytes, cuts) => {
        expect(decode(cutAnywhere(bytes, cuts))).toEqual(decode([bytes]));
      }),
      { seed: 11, numRuns: 400 },
    );
  });
});
