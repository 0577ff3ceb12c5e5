import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readUsage } from '../../src/normalize/read-usage.js';

describe('readUsage', () => {
  it('keeps the three counts and the two known details', () => {
    expect(
      readUsage({
        prompt_tokens: 10,
        completion_tokens: 4,
        total_tokens: 14,
        completion_tokens_details: { reasoning_tokens: 3, audio_tokens: 0 },
        prompt_tokens_details: { cached_tokens: 8 },
        object: 'chat.completion',
        latency_checkpoint: 12,
      }),
    ).toEqual({
      prompt_tokens: 10,
      completion_tokens: 4,
      total_tokens: 14,
      completion_tokens_details: { reasoning_tokens: 3 },
      prompt_tokens_details: { cached_tokens: 8 },
    });
  });

  it('leaves out details the server did not give, or gave as null', () => {
    expect(
      readUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, completion_tokens_details: null, prompt_tokens_details: {} }),
    ).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
    expect(
      readUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, completion_tokens_details: { reasoning_tokens: null } }),
    ).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  });

  it('passes over details of an odd shape rather than losing the counts', () => {
    expect(readUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, prompt_tokens_details: 'n/a' })).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
  });

  it('sums the total when a server leaves it out', () => {
    expect(readUsage({ prompt_tokens: 5, completion_tokens: 6 })).toEqual({ prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 });
  });

  it('reads null, missing counts and other shapes as no usage', () => {
    for (const value of [null, undefined, {}, { prompt_tokens: 1 }, { prompt_tokens: '1', completion_tokens: 2 }, 'usage', [1], { prompt_tokens: -1, completion_tokens: 0 }]) {
      expect(readUsage(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it('reads the plain three counts as the full schema reads them, whatever their values', () => {
    // The schema readUsage applies to any usage it does not read field by field.
    const count = z.number().int().nonnegative();
    const schema = z.object({ prompt_tokens: count, completion_tokens: count, total_tokens: count.nullish() });
    const value = fc.oneof(
      fc.nat({ max: 1_000_000 }),
      fc.integer(),
      fc.constantFrom(-0, 0.5, 2 ** 53, 2 ** 53 - 1, Number.MAX_VALUE, null, '3', true),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(value, value, value, fc.boolean(), (prompt, completion, total, extra) => {
        const usage: Record<string, unknown> = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
        if (extra) usage['object'] = 'usage';
        const parsed = schema.safeParse(usage);
        const expected = parsed.success
          ? { prompt_tokens: parsed.data.prompt_tokens, completion_tokens: parsed.data.completion_tokens, total_tokens: parsed.data.total_tokens ?? parsed.data.prompt_tokens + parsed.data.completion_tokens }
          : undefined;
        expect(readUsage(usage)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
    expect(readUsage([1, 2, 3])).toBeUndefined();
  });
});
