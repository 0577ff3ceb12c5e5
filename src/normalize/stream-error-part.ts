/**
 * The two ways a chunk reader reports a failure inside a stream, shared by the chat reader and
 * the legacy completions reader so that both say the same thing for the same bytes: the
 * server's own error (read through the one error mapping), or a chunk svir cannot read.
 */
import type { StreamContext } from './stream-context.js';
import { SvirError } from '../errors.js';
import { mapUpstreamError } from './map-upstream-error.js';
import type { Part } from './parts.js';

/** An error chunk: `{"error":{...}}`, or older vLLM's body at the top level, `{"object":"error",...}`. */
export function isErrorChunk(error: unknown, object: unknown): boolean {
  return (error !== undefined && error !== null) || object === 'error';
}

/** The server's error, sent inside the stream (an error chunk or `event: error`). */
export function streamErrorPart(body: string, ctx: StreamContext): Part {
  return {
    kind: 'error',
    error: mapUpstreamError({
      status: 200,
      body,
      backend: ctx.backend,
      channel: 'stream',
      secrets: ctx.secrets ?? [],
      ...(ctx.contextLength === undefined ? {} : { contextLength: ctx.contextLength }),
    }),
  };
}

/** A chunk svir cannot read: the stream is the server's fault, said without quoting it. */
export function unreadablePart(ctx: StreamContext, what: string): Part {
  return {
    kind: 'error',
    error: new SvirError('upstream_error', {
      source: 'upstream',
      backend: ctx.backend,
      message: `backend "${ctx.backend}" sent an unreadable chunk: ${what}.`,
    }),
  };
}
