/**
 * The request body in parts (encode-json-body.ts) must be exactly what JSON.stringify writes,
 * with its exact UTF-8 length: the length goes out as Content-Length before the first byte.
 * Checked on hand-picked bodies with every escape class and multibyte text, on seeded random
 * JSON, and end to end through undici to a local server that reads the raw request.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  bodyPieces,
  encodeJsonBody,
  LONG_STRING_LENGTH,
  PIECE_LENGTH,
  SLICED_BODY_MIN,
  type EncodedJsonBody,
} from '../../src/upstream/encode-json-body.js';

function joined(body: EncodedJsonBody): string {
  return body.parts.join('');
}

function piecesJoined(body: EncodedJsonBody): string {
  return [...bodyPieces(body)].join('');
}

/** Checks text, length and pieces against JSON.stringify; returns the encoding. */
function expectSameAsStringify(value: unknown): EncodedJsonBody {
  const expected = JSON.stringify(value);
  const body = encodeJsonBody(value);
  expect(joined(body)).toBe(expected);
  expect(body.byteLength).toBe(Buffer.byteLength(expected, 'utf8'));
  expect(piecesJoined(body)).toBe(expected);
  return body;
}

/** A base64-like text of `length` characters (no character JSON escapes). */
function base64Text(length: number, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let state = seed;
  let text = '';
  const block: string[] = [];
  for (let i = 0; i < 4096; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    block.push(alphabet[state % 64] ?? 'A');
  }
  const blockText = block.join('');
  while (text.length < length) text += blockText;
  return text.slice(0, length);
}

const IMAGE = base64Text(SLICED_BODY_MIN + 12_345, 7);

function imageRequest(image: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'm',
    stream: true,
    messages: [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${image}`, detail: 'auto' } },
        ],
      },
    ],
    ...extra,
  };
}

describe('encodeJsonBody', () => {
  it('writes a small body whole, as JSON.stringify does', () => {
    const body = expectSameAsStringify({ model: 'm', messages: [{ role: 'user', content: 'héllo 👋' }], n: 1 });
    expect(body.parts).toHaveLength(1);
  });

  it('passes a long base64 string on as it is, not copied into one text', () => {
    const value = imageRequest(IMAGE);
    const body = expectSameAsStringify(value);
    expect(body.parts.length).toBe(3);
    // The long part is the image's own string (the same characters, between the quotes).
    expect(body.parts[1]).toBe(`data:image/png;base64,${IMAGE}`);
    expect(body.parts[0]?.endsWith('"url":"')).toBe(true);
    expect(body.parts[2]?.startsWith('","detail"')).toBe(true);
  });

  it('writes long strings that need escaping with JSON.stringify, every escape class', () => {
    const controls = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).join('');
    const escapes = `quote " backslash \\ newline \n cr \r tab \t backspace \b formfeed \f controls ${controls} DEL \u007f`;
    const multibyte = 'é ß 中文 👋 \u2028 \u2029 ';
    const loneSurrogates = 'lone \ud800 and \udfff end';
    const long = (text: string): string => text.repeat(Math.ceil(LONG_STRING_LENGTH / text.length) + 1);
    const value = imageRequest(IMAGE, {
      escapes: long(escapes),
      multibyte: long(multibyte),
      surrogates: long(loneSurrogates),
      multibyteClean: long('中文é'),
      short: [escapes, multibyte, loneSurrogates],
    });
    const body = expectSameAsStringify(value);
    // The image and the multibyte text with no escape and no surrogate are passed on; the rest is written.
    expect(body.parts.filter((_, i) => i % 2 === 1)).toHaveLength(2);
  });

  it('keeps JSON.stringify rules for undefined, functions, symbols, numbers and null prototypes', () => {
    const bare: Record<string, unknown> = Object.create(null);
    bare.image = IMAGE;
    bare.gone = undefined;
    const value = {
      a: undefined,
      b: () => 1,
      c: Symbol('x'),
      list: [undefined, () => 1, Symbol('y'), Number.NaN, Infinity, -0, 1e21, 0.1, true, null],
      bare,
      image: IMAGE,
    };
    expectSameAsStringify(value);
  });

  it('leaves values with toJSON or a class to JSON.stringify whole', () => {
    const value = { when: new Date(0), custom: { toJSON: () => IMAGE }, image: IMAGE, map: new Map([[1, 2]]) };
    const body = expectSameAsStringify(value);
    expect(body.parts).toHaveLength(1);
  });

  it('agrees with JSON.stringify on random JSON with long strings in it (seeded)', () => {
    const longString = fc
      .tuple(fc.nat({ max: 50 }), fc.string({ unit: 'grapheme', maxLength: 8 }))
      .map(([seed, tail]) => base64Text(SLICED_BODY_MIN / 4, seed) + tail);
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.jsonValue({ maxDepth: 1 }),
        longString,
        fc.array(tie('node'), { maxLength: 5 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('node'), { maxKeys: 5 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expectSameAsStringify(v);
        // Next to an image, the body always takes the sliced path.
        expect(expectSameAsStringify({ v, image: IMAGE }).parts.length).toBeGreaterThan(1);
      }),
      { seed: 0x8b0d, numRuns: 60 },
    );
  });

  it('cuts only long strings into pieces, each at most the piece length', () => {
    const body = encodeJsonBody(imageRequest(IMAGE));
    const pieces = [...bodyPieces(body)];
    expect(pieces.length).toBeGreaterThan(SLICED_BODY_MIN / PIECE_LENGTH);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(PIECE_LENGTH);
  });
});

describe('a sliced body through undici', () => {
  it('arrives with the exact Content-Length, not chunked, byte for byte', async () => {
    const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(parts) });
        res.end('ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const address: AddressInfo | string | null = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const port = address.port;
      const value = imageRequest(IMAGE, { note: 'multibyte 中文 👋 and "quotes"' });
      const body = encodeJsonBody(value);
      expect(body.parts.length).toBeGreaterThan(1);
      const response = await request(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.byteLength) },
        body: Readable.from(bodyPieces(body), { objectMode: false }),
      });
      expect(await response.body.text()).toBe('ok');
      const got = received[0];
      expect(got?.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(value))));
      expect(got?.headers['transfer-encoding']).toBeUndefined();
      expect(got?.body.equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
    } finally {
      server.close();
    }
  });
});
