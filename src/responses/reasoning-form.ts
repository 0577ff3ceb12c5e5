/**
 * Which form a response's reasoning takes (docs/responses.md, "Reasoning"). svir has the raw
 * reasoning the model wrote and no summarizer, and sends it once, never twice: a client that
 * reads both event kinds (Qwen Code, pi) would show it twice.
 * - `summary`: the request asked for a summary (`reasoning.summary`, or the older
 *   `reasoning.generate_summary`): the reasoning text stands as the summary, the way a client
 *   that asked shows it (the AI SDK, Codex and pi show the summary).
 * - `content`: it did not: the raw reasoning as `reasoning_text` content, as vLLM's and
 *   llama.cpp's own /v1/responses send it (and OpenAI's gpt-oss guide describes), summary empty.
 */
import type { ResponsesRequest } from './responses-request.js';

export type ReasoningForm = 'summary' | 'content';

export function reasoningFormOf(request: ResponsesRequest): ReasoningForm {
  const reasoning = request.reasoning;
  const summary = reasoning?.summary ?? reasoning?.generate_summary;
  return summary === undefined || summary === null ? 'content' : 'summary';
}
