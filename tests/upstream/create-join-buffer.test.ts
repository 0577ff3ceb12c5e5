/** createJoinBuffer: the pieces of one read in one run of bytes, in a buffer reused read after read. */
import { describe, expect, it } from 'vitest';
import { createJoinBuffer } from '../../src/upstream/create-join-buffer.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('createJoinBuffer', () => {
  it('joins the pieces in order, and the next join reuses the same memory', () => {
    const buffer = createJoinBuffer();
    const first = buffer.join([bytes('data: a'), bytes('\n\n'), bytes('data: é')]);
    expect(first.toString('utf8')).toBe('data: a\n\ndata: é');
    const second = buffer.join([bytes('xy'), bytes('z')]);
    expect(second.toString('utf8')).toBe('xyz');
    // The same backing memory: the first view now shows the second read's bytes.
    expect(second.buffer).toBe(first.buffer);
    expect(first.subarray(0, 3).toString('utf8')).toBe('xyz');
  });

  it('grows for a longer read and keeps the larger buffer', () => {
    const buffer = createJoinBuffer();
    const small = buffer.join([bytes('a'), bytes('b')]);
    const long = Array.from({ length: 3 }, (_, i) => Buffer.alloc(50_000, 97 + i));
    const joined = buffer.join(long);
    expect(joined.equals(Buffer.concat(long))).toBe(true);
    expect(joined.buffer).not.toBe(small.buffer);
    expect(buffer.join([bytes('c'), bytes('d')]).buffer).toBe(joined.buffer);
  });

  it('never grows its buffer past the largest it keeps (1 MiB), however reads grow', () => {
    const buffer = createJoinBuffer();
    buffer.join([Buffer.alloc(300_000, 1), Buffer.alloc(300_000, 2)]);
    const pieces = [Buffer.alloc(350_000, 3), Buffer.alloc(350_000, 4)];
    const joined = buffer.join(pieces);
    expect(joined.equals(Buffer.concat(pieces))).toBe(true);
    expect(joined.buffer.byteLength).toBe(1024 * 1024);
  });

  it('concatenates a read longer than the largest buffer it keeps into a buffer of its own', () => {
    const buffer = createJoinBuffer();
    const kept = buffer.join([bytes('a'), bytes('b')]);
    const huge = [Buffer.alloc(700_000, 1), Buffer.alloc(700_000, 2)];
    const joined = buffer.join(huge);
    expect(joined.equals(Buffer.concat(huge))).toBe(true);
    expect(buffer.join([bytes('c'), bytes('d')]).buffer).toBe(kept.buffer);
  });

  it('gives an empty run for empty pieces', () => {
    expect(createJoinBuffer().join([Buffer.alloc(0), Buffer.alloc(0)]).length).toBe(0);
  });
});
