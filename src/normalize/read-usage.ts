/**
 * An upstream `usage` object → the clean dialect's usage (DESIGN.md §2): the three counts and,
 * where the server gave them, reasoning and cached tokens. Everything else servers add
 * (`object`, `timings`, peak memory, Azure's `latency_checkpoint`) is left behind.
 */
import { z } from 'zod';
import type { Usage } from './parts.js';

const count = z.number().int().nonnegative();

const usageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count.nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count.nullish() }).nullish().catch(undefined),
  prompt_tokens_details: z.object({ cached_tokens: count.nullish() }).nullish().catch(undefined),
});

/** Returns undefined when the value is not a usage object (null, or the counts are missing). */
export function readUsage(value: unknown): Usage | undefined {
  if (value === null || value === undefined) return undefined;
  const parsed = usageSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { prompt_tokens, completion_tokens, total_tokens, completion_tokens_details, prompt_tokens_details } =
    parsed.data;
  const usage: Usage = {
    prompt_tokens,
    completion_tokens,
    // The sum is what the total means; a server that leaves it out still said both parts.
    total_tokens: total_tokens ?? prompt_tokens + completion_tokens,
  };
  const reasoning = completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined && reasoning !== null) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  const cached = prompt_tokens_details?.cached_tokens;
  if (cached !== undefined && cached !== null) usage.prompt_tokens_details = { cached_tokens: cached };
  return usage;
}
