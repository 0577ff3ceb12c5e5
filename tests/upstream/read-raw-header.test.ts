/**
 * readRawHeader reads one header from undici's raw pairs exactly as undici's own parsed object
 * would hold it (dispatch-request.ts reads the raw pairs instead of building that object).
 */
import { util } from 'undici';
import { describe, expect, it } from 'vitest';
import { readRawHeader } from '../../src/upstream/read-raw-header.js';

const raw = (...pairs: string[]): Buffer[] => pairs.map((text) => Buffer.from(text, 'latin1'));

describe('readRawHeader', () => {
  const cases: Array<{ what: string; headers: Buffer[]; names: string[] }> = [
    {
      what: 'names in any case, values as sent',
      headers: raw('Content-Type', 'text/event-stream; charset=utf-8', 'RETRY-AFTER', '7', 'date', 'Tue, 01 Dec 2026 20:00:00 GMT'),
      names: ['content-type', 'retry-after', 'date', 'x-absent'],
    },
    {
      what: 'a repeated header is an array, in order, whatever the case of each name',
      headers: raw('x-two', 'a', 'Content-Type', 'application/json', 'X-Two', 'b', 'x-TWO', 'c'),
      names: ['x-two', 'content-type'],
    },
    {
      what: 'latin1 bytes and an empty value',
      headers: raw('content-type', 'text/plain; x=\u00e9', 'retry-after', ''),
      names: ['content-type', 'retry-after'],
    },
    {
      what: 'names of the same length that differ',
      headers: raw('content-typo', 'no', 'content-type', 'yes'),
      names: ['content-type', 'content-typo'],
    },
    { what: 'no headers', headers: [], names: ['content-type'] },
  ];

  for (const { what, headers, names } of cases) {
    it(what, () => {
      const parsed = util.parseHeaders(headers);
      for (const name of names) expect(readRawHeader(headers, name), name).toEqual(parsed[name]);
    });
  }

  it('reads a repeated header as an array and an absent one as undefined', () => {
    const headers = raw('Retry-After', '1', 'retry-after', '2');
    expect(readRawHeader(headers, 'retry-after')).toEqual(['1', '2']);
    expect(readRawHeader(headers, 'content-type')).toBeUndefined();
  });
});
