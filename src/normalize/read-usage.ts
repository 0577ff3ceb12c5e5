/**
 * An upstream `usage` object → the clean dialect's usage (docs/contract.md#clean-dialect): the
 * three counts and, where the server gave them, reasoning and cached tokens. Everything else
 * servers add (`object`, `timings`, peak memory, Azure's `latency_checkpoint`) is left behind.
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The usage nearly every server sends (the three counts, no details), read field by field: the
 * same judgement as usageSchema on exactly that shape, without zod's cost once per stream (its
 * parse was about 1% of svir's busy time under load, most of it cold caches). Anything else
 * (details, a count of another type) is usageSchema's to read; undefined then.
 */
function readPlainUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const { prompt_tokens, completion_tokens, total_tokens, completion_tokens_details, prompt_tokens_details } = value;
  if (completion_tokens_details !== undefined || prompt_tokens_details !== undefined) return undefined;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens)) return undefined;
  if (total_tokens !== undefined && total_tokens !== null && !isCount(total_tokens)) return undefined;
  return { prompt_tokens, completion_tokens, total_tokens: total_tokens ?? prompt_tokens + completion_tokens };
}

/** Returns undefined when the value is not a usage object (null, or the counts are missing). */
export function readUsage(value: unknown): Usage | undefined {
  if (value === null || value === undefined) return undefined;
  const plain = readPlainUsage(value);
  if (plain !== undefined) return plain;
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
