/**
 * sameJson (the image layout's "did anything change") must agree with comparing the
 * JSON.stringify texts, which it replaced so that a 50 MB image is not written out twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/adapters/request/same-json.js';

describe('sameJson', () => {
  it('agrees with comparing JSON texts on seeded random JSON and near copies', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        const copy: unknown = JSON.parse(JSON.stringify(a));
        expect(sameJson(a, copy)).toBe(true);
      }),
      { seed: 0x5a3e, numRuns: 500 },
    );
  });

  it('sees key order, arrays against objects, and a changed nested value', () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ a: [{ url: 'x' }] }, { a: [{ url: 'y' }] })).toBe(false);
    expect(sameJson({ a: [{ url: 'x' }] }, { a: [{ url: 'x' }] })).toBe(true);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson(1, '1')).toBe(false);
  });
});
