/**
 * `stream: false` on `/v1/completions`: the clean chunks of one answer → one `text_completion`
 * object, text joined, the one finish reason, `usage` when the server gave it, and `logprobs`
 * (when the client asked and the server sent them) joined list by list: the legacy shape keeps
 * parallel lists (`tokens`, `token_logprobs`, `top_logprobs`, `text_offset`), mlx-lm's chat
 * shape one `content` list; a value that is not such an object is kept as the last one sent.
 */
import type { CleanChunk } from './clean-chunk.js';
import type { Usage } from './parts.js';
import { toTextCompletionChunk, type TextCompletionChoice, type TextCompletionChunk } from './to-text-completion-chunk.js';

/** The legacy API's folded answer has the shape of one of its stream chunks. */
export type TextCompletion = TextCompletionChunk;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function joinLogprobs(earlier: unknown, later: unknown): unknown {
  if (earlier === undefined) return later;
  if (!isRecord(earlier) || !isRecord(later)) return later;
  const joined: Record<string, unknown> = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    const before = joined[key];
    joined[key] = Array.isArray(before) && Array.isArray(value) ? [...before, ...value] : value;
  }
  return joined;
}

export function foldTextCompletion(chunks: readonly CleanChunk[], identity: { model: string }): TextCompletion {
  let id = '';
  let created = 0;
  let text = '';
  let finish: TextCompletionChoice['finish_reason'] = null;
  let logprobs: unknown;
  let usage: Usage | undefined;
  for (const clean of chunks) {
    const chunk = toTextCompletionChunk(clean);
    if (chunk === undefined) continue;
    id = chunk.id;
    created = chunk.created;
    if (chunk.usage !== undefined) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    text += choice.text;
    if (choice.finish_reason !== null) finish = choice.finish_reason;
    if ('logprobs' in choice) logprobs = joinLogprobs(logprobs, choice.logprobs);
  }
  const choice: TextCompletionChoice =
    logprobs === undefined ? { index: 0, text, finish_reason: finish } : { index: 0, text, logprobs, finish_reason: finish };
  const completion: TextCompletion = { id, object: 'text_completion', created, model: identity.model, choices: [choice] };
  if (usage !== undefined) completion.usage = usage;
  return completion;
}
