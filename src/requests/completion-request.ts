/**
 * The client's legacy Completions request (`POST /v1/completions`): zod reads the fields svir
 * acts on and lets every other field through untouched to the upstream. One prompt, one choice:
 * the clean stream has one choice at index 0, as on the chat route.
 */
import { z } from 'zod';

const tokens = z.array(z.number().int());

export const completionRequestSchema = z.looseObject({
  model: z.string().min(1).max(512),
  prompt: z.union([
    z.string(),
    tokens,
    z.array(z.string()).length(1, { message: 'one prompt per request is supported' }),
    z.array(tokens).length(1, { message: 'one prompt per request is supported' }),
  ]),
  suffix: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
  n: z.literal(1, { message: 'only n = 1 is supported' }).nullable().optional(),
  best_of: z.literal(1, { message: 'only best_of = 1 is supported' }).nullable().optional(),
  // Legacy logprobs are a count (0 to 5 at OpenAI), not a boolean.
  logprobs: z.number().int().nonnegative().nullable().optional(),
});

export type CompletionRequest = z.infer<typeof completionRequestSchema>;
