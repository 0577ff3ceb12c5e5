/**
 * Chat usage → Responses usage, always with both details objects (the `openai` package's types
 * require them, and Python readers index them unguarded), in the order OpenAI sends the fields.
 * Where the server gave a figure it is sent as it is; otherwise svir's best knowledge
 * (docs/responses.md, "usage"):
 * - `cached_tokens`: 0. No local server reports what its prompt cache served; OpenAI too sends
 *   0 when nothing was cached.
 * - `reasoning_tokens`: 0 when the answer had no reasoning, which is exact; else the number of
 *   reasoning pieces the stream carried (servers stream about one token per event), at most
 *   `output_tokens`.
 */
import type { Usage } from '../normalize/parts.js';
import type { ResponseUsage } from './response-object.js';

export function toResponseUsage(usage: Usage, reasoningPieces: number): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: {
      reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? Math.min(reasoningPieces, usage.completion_tokens),
    },
    total_tokens: usage.total_tokens,
  };
}
