/**
 * vLLM counts a chat prompt in one exchange: `POST /tokenize` with the model, messages and
 * tools renders its chat template and answers `{count, max_model_len, tokens}`.
 */
import { z } from 'zod';
import type { TokenCountInput, TokenCountPlan } from './token-count-plan.js';

const counted = z.looseObject({ count: z.number().int().nonnegative() });

export function vllmTokenCount(input: TokenCountInput): TokenCountPlan {
  const body: Record<string, unknown> = { model: input.model, messages: input.messages, add_generation_prompt: true };
  if (input.tools !== undefined && input.tools.length > 0) body['tools'] = input.tools;
  return {
    path: 'tokenize',
    body,
    read(json) {
      const parsed = counted.safeParse(json);
      return parsed.success ? parsed.data.count : undefined;
    },
  };
}
