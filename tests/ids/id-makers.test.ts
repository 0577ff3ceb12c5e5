import { describe, expect, it } from 'vitest';
import { createIdMaker } from '../../src/ids/create-id-maker.js';
import { createMessageIdMaker } from '../../src/ids/create-message-id-maker.js';
import { createRandomBytesPool } from '../../src/ids/create-random-bytes-pool.js';
import { createResponsesIdMaker } from '../../src/ids/create-responses-id-maker.js';

describe('createRandomBytesPool', () => {
  it('hands out fresh bytes of the length asked, across refills of the pool', () => {
    const randomBytes = createRandomBytesPool();
    const seen = new Set<string>();
    // 4096-byte pool: 1 000 takes of 29 bytes refill it several times.
    for (let i = 0; i < 1_000; i += 1) {
      const bytes = randomBytes(29);
      expect(bytes.length).toBe(29);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(1_000);
  });

  it('serves a take that does not fit what is left of the pool from a fresh fill', () => {
    const randomBytes = createRandomBytesPool();
    const first = Buffer.from(randomBytes(4_000));
    const second = randomBytes(200);
    expect(second.length).toBe(200);
    expect(first.subarray(0, 200).equals(second)).toBe(false);
  });

  it('refuses more than the pool holds', () => {
    expect(() => createRandomBytesPool()(4_097)).toThrow(RangeError);
  });

  it('keeps a pool per maker: one taking bytes leaves the view another holds as it was', () => {
    const one = createRandomBytesPool();
    const other = createRandomBytesPool();
    const held = one(16);
    const copy = Buffer.from(held);
    for (let i = 0; i < 1_000; i += 1) other(29);
    expect(held.equals(copy)).toBe(true);
  });
});

describe('ids from a pool', () => {
  it('keeps the shapes OpenAI uses, never twice the same, three makers sharing one pool', () => {
    const randomBytes = createRandomBytesPool();
    const makeId = createIdMaker(randomBytes);
    const makeResponsesId = createResponsesIdMaker(randomBytes);
    const makeMessageId = createMessageIdMaker(randomBytes);
    const ids = new Set<string>();
    for (let i = 0; i < 500; i += 1) {
      const completion = makeId('completion');
      const call = makeId('call');
      const response = makeResponsesId('response');
      expect(completion).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
      expect(call).toMatch(/^call_[A-Za-z0-9]{24}$/);
      expect(response).toMatch(/^resp_[0-9a-f]{48}$/);
      expect(makeResponsesId('fc')).toMatch(/^fc_[0-9a-f]{48}$/);
      expect(makeId('request')).toMatch(/^[0-9a-f-]{36}$/);
      const message = makeMessageId();
      expect(message).toMatch(/^msg_[0-9a-f]{24}$/);
      ids.add(completion).add(call).add(response).add(message);
    }
    expect(ids.size).toBe(2_000);
  });

  it('makes its own pool when given none', () => {
    const a = createIdMaker();
    const b = createIdMaker();
    expect(a('completion')).not.toBe(b('completion'));
  });
});
