/**
 * Clean usage → the Messages `usage` object. `input_tokens` is the prompt less what the server
 * read from its cache (Anthropic counts those apart, as `cache_read_input_tokens`).
 */
import type { Usage } from '../normalize/parts.js';

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export function toMessagesUsage(usage: Usage | undefined, inputEstimate: number): MessagesUsage {
  if (usage === undefined) return { input_tokens: inputEstimate, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cached),
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
