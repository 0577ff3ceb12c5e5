/**
 * The generic reader of a legacy Completions stream (`text_completion` chunks): one SSE event →
 * the same neutral parts a chat stream gives, so that the one normalizer (ids, the held finish,
 * usage, errors, a cut stream) serves this route too. The text of the first choice is answer
 * text; `logprobs` are passed on as the server wrote them (the legacy lists, or mlx-lm's chat
 * shape); `usage` is read from whichever chunk carries it (mlx-lm labels its usage chunk
 * `chat.completion`). An error chunk or `event: error` is the server's failure.
 */
import { z } from 'zod';
import type { StreamContext } from './stream-context.js';
import { nestsDeeperThan } from './nests-deeper-than.js';
import type { Part, SseEvent } from './parts.js';
import { pushMeta } from './push-meta.js';
import { MAX_LOGPROBS_DEPTH } from './chunk-envelope.js';
import { readChunkEnvelope } from './read-chunk-envelope.js';
import { readEventJson } from './read-event-json.js';
import { unreadablePart } from './stream-error-part.js';
import { readUsage } from './read-usage.js';

const choiceSchema = z.object({
  index: z.unknown().optional(),
  text: z.string().nullish(),
  logprobs: z.unknown().optional(),
  finish_reason: z.string().nullish(),
});

export function readCompletionEvent(event: SseEvent, ctx: StreamContext): Part[] {
  const chunk = readEventJson(event, ctx);
  if (Array.isArray(chunk)) return chunk;
  const envelope = readChunkEnvelope(chunk.json, chunk.data, ctx);
  if (Array.isArray(envelope)) return envelope;
  const { id, created, choices, usage } = envelope;

  const parts: Part[] = [];
  pushMeta(parts, id, created);
  const first = (choices ?? []).map((raw) => choiceSchema.safeParse(raw)).find((read) => !read.success || isFirst(read.data.index));
  if (first !== undefined) {
    if (!first.success) return [unreadablePart(ctx, 'a choice of an unexpected shape')];
    const { text, logprobs, finish_reason } = first.data;
    if (text) parts.push({ kind: 'content', text });
    if (logprobs !== undefined && logprobs !== null) {
      if (ctx.logprobs && nestsDeeperThan(logprobs, MAX_LOGPROBS_DEPTH)) return [unreadablePart(ctx, 'logprobs nested too deeply')];
      parts.push({ kind: 'logprobs', value: logprobs });
    }
    if (finish_reason) parts.push({ kind: 'finish', reason: finish_reason });
  }
  const read = readUsage(usage);
  if (read !== undefined) parts.push({ kind: 'usage', usage: read });
  return parts;
}

/** The choice with index 0 (or none given); other choices are not part of a one-prompt answer. */
function isFirst(index: unknown): boolean {
  return index === 0 || index === undefined || index === null;
}

