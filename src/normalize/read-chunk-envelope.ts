/**
 * The second step of both chunk readers: the chunk's JSON → its envelope (identity, choices,
 * usage), or the one part that ends the stream: a chunk of another shape is unreadable, and an
 * error chunk (`{"error":{...}}`, or older vLLM's error body at the top level,
 * `{"object":"error","message":"...","code":500}`, which has no `error` key) is the server's
 * failure, in its own words.
 */
import type { StreamContext } from './stream-context.js';
import { chunkEnvelopeSchema, type ChunkEnvelope } from './chunk-envelope.js';
import type { Part } from './parts.js';
import { isErrorChunk, streamErrorPart, unreadablePart } from './stream-error-part.js';

export function readChunkEnvelope(json: unknown, data: string, ctx: StreamContext): Part[] | ChunkEnvelope {
  const chunk = chunkEnvelopeSchema.safeParse(json);
  if (!chunk.success) return [unreadablePart(ctx, 'a chunk that is not a JSON object of the chunk shape')];
  if (isErrorChunk(chunk.data.error, chunk.data.object)) return [streamErrorPart(data, ctx)];
  return chunk.data;
}
