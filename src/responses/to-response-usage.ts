/** Chat usage → Responses usage; the details only where the server gave them (never invented). */
import type { Usage } from '../normalize/parts.js';
import type { ResponseUsage } from './response-object.js';

export function toResponseUsage(usage: Usage): ResponseUsage {
  const out: ResponseUsage = {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
  };
  if (usage.prompt_tokens_details !== undefined) out.input_tokens_details = { cached_tokens: usage.prompt_tokens_details.cached_tokens };
  if (usage.completion_tokens_details !== undefined) {
    out.output_tokens_details = { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens };
  }
  return out;
}
