/**
 * llama.cpp counts a prompt in two exchanges: `POST /apply-template` renders the messages and
 * tools with the model's chat template (`{prompt}`), then `POST /tokenize` turns that text into
 * the model's tokens (`{tokens: [...]}`), special tokens of the template read as such.
 */
import { z } from 'zod';
import type { TokenCountInput, TokenCountPlan } from './token-count-plan.js';

const rendered = z.looseObject({ prompt: z.string() });
const tokenized = z.looseObject({ tokens: z.array(z.unknown()) });

export function llamacppTokenCount(input: TokenCountInput): TokenCountPlan {
  const body: Record<string, unknown> = { messages: input.messages };
  if (input.tools !== undefined && input.tools.length > 0) body['tools'] = input.tools;
  return {
    path: 'apply-template',
    body,
    read(json) {
      const parsed = rendered.safeParse(json);
      if (!parsed.success) return undefined;
      return {
        path: 'tokenize',
        body: { content: parsed.data.prompt, add_special: true, parse_special: true },
        read(answer) {
          const tokens = tokenized.safeParse(answer);
          return tokens.success ? tokens.data.tokens.length : undefined;
        },
      };
    },
  };
}
