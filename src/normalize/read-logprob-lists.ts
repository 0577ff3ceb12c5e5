/**
 * Logprobs as OpenAI shapes them on a choice: token lists under `content` and `refusal`. Read
 * so that lists of several chunks can be joined (a held chunk's logprobs ride on the next one;
 * `stream: false` joins them all). Any other shape is not joinable: undefined.
 */
import { z } from 'zod';

export interface LogprobLists {
  content: unknown[] | null;
  refusal: unknown[] | null;
}

const logprobsSchema = z.object({
  content: z.array(z.unknown()).nullish(),
  refusal: z.array(z.unknown()).nullish(),
});

export function readLogprobLists(value: unknown): LogprobLists | undefined {
  const parsed = logprobsSchema.safeParse(value);
  if (!parsed.success) return undefined;
  return { content: parsed.data.content ?? null, refusal: parsed.data.refusal ?? null };
}
