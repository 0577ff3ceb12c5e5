/**
 * `stream: true`: clean steps → SSE on the raw response. The headers go out with the first
 * chunk (a failure before it is thrown, for the error handler to answer with its real status);
 * each upstream read becomes ONE write; when the socket is full, the next upstream read waits
 * for `drain`; a failure after the headers ends the stream with one error event and no [DONE].
 */
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from '../errors.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import type { NormalizerStep } from '../normalize/normalizer.js';
import { encodeChunk, encodeDone, encodeErrorEvent } from '../normalize/sse-encoder.js';
import { observeChunk, recordError, type RequestSummary } from '../request-summary.js';
import { ClientGoneError } from './client-gone-error.js';

export interface SendStreamArgs {
  reply: FastifyReply;
  steps: AsyncGenerator<NormalizerStep, void, undefined>;
  summary: RequestSummary;
  now(): number;
  /** The client asked for the usage chunk; otherwise it is read for the log and not sent. */
  includeUsage: boolean;
  signal: AbortSignal;
  /** Told when svir starts (true) and stops (false) waiting for the client to take its data. */
  onClientWait?(waiting: boolean): void;
  /** A clean chunk → the event the client reads ('' for none); chat chunks by default. */
  encode?(chunk: CleanChunk): string;
}

export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // A reverse proxy in front of svir (nginx) would otherwise buffer the stream.
  'x-accel-buffering': 'no',
};

function isUsageChunk(chunk: CleanChunk): boolean {
  return chunk.usage !== undefined && chunk.choices.length === 0;
}

/** Waits until the client has taken the data written so far, or is gone. */
export function drained(raw: FastifyReply['raw']): Promise<void> {
  if (raw.destroyed || raw.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      raw.removeListener('drain', done);
      raw.removeListener('close', done);
      resolve();
    };
    raw.once('drain', done);
    raw.once('close', done);
  });
}

/** The headers Fastify holds for this reply (x-request-id, x-svir-*) plus the stream's own. */
function streamHeaders(reply: FastifyReply): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(reply.getHeaders())) {
    if (typeof value === 'string' || Array.isArray(value)) headers[key] = value;
    else if (typeof value === 'number') headers[key] = String(value);
  }
  delete headers['content-length'];
  return { ...headers, ...STREAM_HEADERS };
}

/**
 * Sends the stream's status and headers now, before any chunk: a long wait for the first token
 * is bridged with `: keepalive` comments (stream-deadlines.ts). From then on a failure can only
 * be an error event. Idempotent.
 */
export function commitStream(reply: FastifyReply): void {
  if (reply.raw.headersSent) return;
  // Headers first: if Node refuses one, the reply is not hijacked yet and the error handler
  // still answers, instead of a client left waiting on a stream nobody writes.
  reply.raw.writeHead(200, streamHeaders(reply));
  reply.hijack();
}

export async function sendStream(args: SendStreamArgs): Promise<void> {
  const { reply, summary } = args;
  const raw = reply.raw;
  // Committed already when keepalives were sent while the first token was awaited.
  let started = raw.headersSent;
  const encode = args.encode ?? encodeChunk;
  try {
    for await (const step of args.steps) {
      let text = '';
      for (const chunk of step.chunks) {
        observeChunk(summary, chunk, args.now());
        if (!args.includeUsage && isUsageChunk(chunk)) continue;
        text += encode(chunk);
      }
      if (step.done) text += encodeDone();
      if (!started) {
        // Nothing generated yet: the error handler answers with the error's own status.
        if (step.error !== undefined && text === '') throw step.error;
        if (text === '') continue;
        commitStream(reply);
        started = true;
      }
      if (step.error !== undefined) {
        recordError(summary, step.error);
        text += encodeErrorEvent(toErrorResponse(step.error).body);
      }
      const roomLeft = raw.write(text);
      if (step.done || step.error !== undefined) {
        raw.end();
        return;
      }
      if (!roomLeft) {
        args.onClientWait?.(true);
        await drained(raw);
        args.onClientWait?.(false);
      }
    }
    // The steps always end with `done` or an error; anything else is a bug, not a clean end.
    throw new Error('the upstream steps ended without a finish');
  } catch (err) {
    if (!started || err instanceof ClientGoneError || args.signal.reason instanceof ClientGoneError) throw err;
    // After the headers: one error event, no [DONE] (shutdown, a deadline, a bug).
    recordError(summary, err);
    if (!raw.destroyed && !raw.writableEnded) raw.end(encodeErrorEvent(toErrorResponse(err).body));
  }
}
