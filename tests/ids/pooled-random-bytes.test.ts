import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from '../../src/ids/pooled-random-bytes.js';
import { defaultMakeId } from '../../src/ids/make-id.js';
import { defaultMakeResponsesId } from '../../src/ids/make-responses-id.js';

describe('pooledRandomBytes', () => {
  it('hands out fresh bytes of the length asked, across refills of the pool', () => {
    const seen = new Set<string>();
    // 4096-byte pool: 1 000 takes of 29 bytes refill it several times.
    for (let i = 0; i < 1_000; i += 1) {
      const bytes = pooledRandomBytes(29);
      expect(bytes.length).toBe(29);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(1_000);
  });

  it('serves a take that does not fit what is left of the pool from a fresh fill', () => {
    const first = Buffer.from(pooledRandomBytes(4_000));
    const second = pooledRandomBytes(200);
    expect(second.length).toBe(200);
    expect(first.subarray(0, 200).equals(second)).toBe(false);
  });

  it('refuses more than the pool holds', () => {
    expect(() => pooledRandomBytes(4_097)).toThrow(RangeError);
  });
});

describe('ids from the pool', () => {
  it('keeps the shapes OpenAI uses, never twice the same', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 500; i += 1) {
      const completion = defaultMakeId('completion');
      const call = defaultMakeId('call');
      const response = defaultMakeResponsesId('response');
      expect(completion).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
      expect(call).toMatch(/^call_[A-Za-z0-9]{24}$/);
      expect(response).toMatch(/^resp_[0-9a-f]{48}$/);
      expect(defaultMakeId('request')).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(completion).add(call).add(response);
    }
    expect(ids.size).toBe(1_500);
  });
});
