/**
 * Chat usage → Responses usage by table: both details objects always, the server's figures
 * where it gave them, svir's best knowledge otherwise (docs/responses.md, "usage").
 */
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../src/normalize/parts.js';
import { toResponseUsage } from '../../src/responses/to-response-usage.js';

const PLAIN: Usage = { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 };

describe('toResponseUsage', () => {
  it.each<[string, Usage, number, { cached: number; reasoning: number }]>([
    ['the server gave both details: sent as they are', { ...PLAIN, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 7 } }, 12, { cached: 4, reasoning: 7 }],
    ['the server gave zeros: zeros, not svir\'s count', { ...PLAIN, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } }, 12, { cached: 0, reasoning: 0 }],
    ['plain usage, no reasoning in the answer: 0 and 0 (exact)', PLAIN, 0, { cached: 0, reasoning: 0 }],
    ['plain usage, reasoning in 12 pieces: 12 reasoning tokens', PLAIN, 12, { cached: 0, reasoning: 12 }],
    ['plain usage, more pieces than output tokens: at most output_tokens', PLAIN, 25, { cached: 0, reasoning: 20 }],
    ['only cached tokens given: the reasoning counted', { ...PLAIN, prompt_tokens_details: { cached_tokens: 9 } }, 3, { cached: 9, reasoning: 3 }],
    ['only reasoning tokens given: cached 0', { ...PLAIN, completion_tokens_details: { reasoning_tokens: 5 } }, 3, { cached: 0, reasoning: 5 }],
  ])('%s', (_, usage, pieces, details) => {
    const out = toResponseUsage(usage, pieces);
    expect(out).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: details.cached },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: details.reasoning },
      total_tokens: 30,
    });
    // In the order OpenAI sends the fields.
    expect(Object.keys(out)).toEqual(['input_tokens', 'input_tokens_details', 'output_tokens', 'output_tokens_details', 'total_tokens']);
  });
});
