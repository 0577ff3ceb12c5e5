/**
 * The two guards that keep an extreme request shape from hurting svir, checked on their own:
 * the JSON depth scan (against a reference that parses and measures) and the whole-tool-name
 * computation (against the definition, every pair compared), with fast-check and a fixed seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from '../../src/http/exceeds-json-depth.js';
import { nestsDeeperThan } from '../../src/normalize/nests-deeper-than.js';
import { wholeToolNames } from '../../src/normalize/tool-call-assembler.js';

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('exceedsJsonDepth', () => {
  it('agrees with the depth of the parsed value, strings with brackets, quotes and backslashes included', () => {
    const tricky = fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', 'a', '\\\\"');
    const stringArb = fc.array(tricky, { maxLength: 8 }).map((pieces) => pieces.join(''));
    const jsonArb = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, stringArb, fc.integer(), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 3 }),
      object: fc.dictionary(stringArb, tie('value'), { maxKeys: 3 }),
    })).value;
    fc.assert(
      fc.property(jsonArb, fc.integer({ min: 0, max: 6 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(exceedsJsonDepth(text, limit)).toBe(depthOf(JSON.parse(text)) > limit);
      }),
      { seed: 0xde9, numRuns: 2_000 },
    );
  });

  it('answers at once for a body nested a hundred thousand levels deep', () => {
    expect(exceedsJsonDepth(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 1_000)).toBe(true);
    expect(exceedsJsonDepth(`{"a":"${'['.repeat(100_000)}"}`, 1_000)).toBe(false);
  });
});

describe('nestsDeeperThan', () => {
  it('agrees with the depth of the value, and never recurses', () => {
    const jsonArb = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string(), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 3 }),
      object: fc.dictionary(fc.string(), tie('value'), { maxKeys: 3 }),
    })).value;
    fc.assert(
      fc.property(jsonArb, fc.integer({ min: 0, max: 6 }), (value, limit) => {
        expect(nestsDeeperThan(value, limit)).toBe(depthOf(value) > limit);
      }),
      { seed: 0xd33b, numRuns: 2_000 },
    );
    expect(nestsDeeperThan(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 64)).toBe(true);
  });
});

describe('wholeToolNames', () => {
  function byDefinition(names: readonly string[]): Set<string> {
    return new Set(names.filter((name) => name.length > 0 && !names.some((other) => other !== name && other.startsWith(name))));
  }

  it('agrees with the definition: declared names no other declared name extends', () => {
    // A tiny alphabet makes prefixes (and duplicates) common.
    const name = fc.array(fc.constantFrom('a', 'b', '_', 'é', '🙂'), { maxLength: 4 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 12 }), (names) => {
        expect([...wholeToolNames(names)].sort()).toEqual([...byDefinition(names)].sort());
      }),
      { seed: 0x7001, numRuns: 2_000 },
    );
  });

  it('takes twenty thousand names in one sort, not every pair', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `tool_${i}`);
    const whole = wholeToolNames(names);
    // tool_k is extended exactly when tool_k0 exists, i.e. 1 <= k < 2000; tool_0 has no tool_0x.
    expect(whole.has('tool_0')).toBe(true);
    expect(whole.has('tool_1')).toBe(false);
    expect(whole.has('tool_1999')).toBe(false);
    expect(whole.has('tool_2000')).toBe(true);
    expect(whole.size).toBe(1 + 18_000);
  });
});
