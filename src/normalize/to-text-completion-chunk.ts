/**
 * A clean chunk (the one normalizer's output) → the legacy Completions chunk a client of
 * `/v1/completions` reads: `object: "text_completion"`, the same `id`, `created` and `model`,
 * one choice `{index: 0, text, finish_reason}` with `logprobs` only when the client asked and
 * the server sent them, or `choices: []` with `usage`. A chunk that says nothing in this
 * dialect (the chat stream's opening role) is undefined: nothing to send.
 */
import type { CleanChunk, FinishReason } from './clean-chunk.js';
import type { Usage } from './parts.js';

export interface TextCompletionChoice {
  index: 0;
  text: string;
  finish_reason: FinishReason | null;
  logprobs?: unknown;
}

export interface TextCompletionChunk {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: TextCompletionChoice[];
  usage?: Usage;
}

export function toTextCompletionChunk(chunk: CleanChunk): TextCompletionChunk | undefined {
  const { id, created, model } = chunk;
  const choice = chunk.choices[0];
  if (choice === undefined) {
    return chunk.usage === undefined ? undefined : { id, object: 'text_completion', created, model, choices: [], usage: chunk.usage };
  }
  const text = typeof choice.delta.content === 'string' ? choice.delta.content : '';
  const hasLogprobs = 'logprobs' in choice;
  if (text === '' && choice.finish_reason === null && !hasLogprobs) return undefined;
  const out: TextCompletionChoice = hasLogprobs
    ? { index: 0, text, logprobs: choice.logprobs, finish_reason: choice.finish_reason }
    : { index: 0, text, finish_reason: choice.finish_reason };
  return { id, object: 'text_completion', created, model, choices: [out] };
}
