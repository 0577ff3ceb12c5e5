/**
 * `stream: true`: clean steps → SSE on the raw response, in the same turn as the upstream read
 * that produced them (pump-clean-steps.ts): the steps of one turn become ONE write at its end
 * (the last one is written with the end at once), with no promise between the read and the
 * write. One exception, when no other request is in flight (`alone`): the stream's first event
 * leaves with the head at once, before the rest of a read that holds more is run. The headers go out with the first chunk (a failure before it is thrown, for the error
 * handler to answer with its real status); when the socket is full, the upstream reading pauses
 * until `drain`; a failure after the headers ends the stream with one error event and no
 * [DONE].
 *
 * `sendSteps` is that loop for any stream format (the Responses route writes its own events
 * through it); `sendStream` is the chat format.
 */
import type { FastifyReply } from 'fastify';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { toErrorResponse } from '../errors.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import { createChunkEncoder, encodeDone, encodeErrorEvent } from '../normalize/sse-encoder.js';
import { observeChunks } from '../logging/observe-chunks.js';
import { recordError } from '../logging/record-error.js';
import type { RequestSummary } from '../logging/request-summary.js';
import type { CleanStepPump, StepSink } from '../upstream/pump-clean-steps.js';
import { addAnswerChanges, encodeChangeComments } from './changes-header.js';
import { ClientGoneError } from './client-gone-error.js';

export interface SendStepsArgs {
  reply: FastifyReply;
  /** Starts the upstream reading, each step handed to `sink` as its read comes. */
  pump(sink: StepSink): CleanStepPump;
  summary: RequestSummary;
  now(): number;
  signal: AbortSignalLike;
  /** Told when svir starts (true) and stops (false) waiting for the client to take its data. */
  onClientWait?(waiting: boolean): void;
  /**
   * Whether no other request is in flight. The stream's first event then leaves in a write of
   * its own, before the rest of its upstream read is run: the write costs one more syscall,
   * and that CPU is no other stream's now. Busy, the read's events go in one write, as always.
   */
  alone?(): boolean;
}

export interface SendStreamArgs extends SendStepsArgs {
  /** The client asked for the usage chunk; otherwise it is read for the log and not sent. */
  includeUsage: boolean;
  /** A clean chunk → the event the client reads ('' for none); chat chunks by default. */
  encode?(chunk: CleanChunk): string;
}

/** A stream's format: the text of its chunks, of its end, of its failure after the headers. */
export interface StreamFormat {
  /** The text of one read's clean chunks (may be empty). */
  chunks(chunks: readonly CleanChunk[]): string;
  /** What ends a complete stream. */
  done(): string;
  /** What ends a stream that failed after its headers. */
  failed(err: unknown): string;
  /** The stream is over, whole or failed (after its headers). */
  ended?(): void;
  /**
   * Called with the stream's last text (its end or its failure) before it is written; what it
   * resolves to is written instead. The Responses route keeps the response here, so that it is
   * stored before the client reads its final event. Never rejects.
   */
  settle?(last: string): Promise<string>;
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

/**
 * The headers Fastify holds for this reply (x-request-id, x-svir-*) plus the stream's own, all
 * written into one new object: a spread of the stream's after the reply's (new keys after a
 * spread) and the delete of content-length were V8's slow paths on Node 20 (2.2 µs a stream
 * against 0.24, micro-benchmark).
 */
function streamHeaders(reply: FastifyReply): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(reply.getHeaders())) {
    if (key === 'content-length') continue;
    if (typeof value === 'string' || Array.isArray(value)) headers[key] = value;
    else if (typeof value === 'number') headers[key] = String(value);
  }
  for (const [key, value] of Object.entries(STREAM_HEADERS)) headers[key] = value;
  return headers;
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

export async function sendSteps(args: SendStepsArgs, format: StreamFormat): Promise<void> {
  const { reply, summary } = args;
  const raw = reply.raw;
  // Committed already when keepalives were sent while the first token was awaited.
  let started = raw.headersSent;
  let ended = false;
  /** The last text, held by the format's settle until it resolves. */
  let settling: Promise<void> | undefined;
  const endWith = (last: string): void => {
    if (format.settle === undefined) {
      if (!raw.destroyed && !raw.writableEnded) raw.end(last);
      format.ended?.();
      return;
    }
    settling = format.settle(last).then((text) => {
      if (!raw.destroyed && !raw.writableEnded) raw.end(text);
      format.ended?.();
    });
  };
  /** A failure before anything was sent: thrown, for the error handler's real status. */
  let before: { err: unknown } | undefined;
  /**
   * The text of the steps taken in this turn, written once at its end (flush). One socket read
   * of the upstream holds many of its chunks, each handed over as a step of its own in the same
   * turn: written one by one, each would be a chunk of the response's chunked encoding and four
   * buffers of the socket's writev (Node corks the writes of one turn), at several times the
   * cost of the same bytes in one piece. The last step is written at once, with the end.
   */
  let pending = '';
  let flushQueued = false;
  /** A write found the client's socket full: steps are not taken again until its `drain`. */
  let waiting = false;

  function waitForClient(): void {
    waiting = true;
    args.onClientWait?.(true);
    void drained(raw).then(() => {
      waiting = false;
      args.onClientWait?.(false);
      pump.resume();
    });
  }

  function flush(): void {
    flushQueued = false;
    const text = pending;
    pending = '';
    if (text === '' || ended || raw.destroyed || raw.writableEnded) return;
    if (!raw.write(text) && !waiting) waitForClient();
  }

  const pump = args.pump({
    // The pieces of one upstream socket read as one step (upstream-body.ts, joins), while the
    // client takes data; alone, not before the first event, which may leave by itself first.
    joins: () => !waiting && !ended && (started || args.alone?.() !== true),
    take(step) {
      observeChunks(summary, step.chunks, args.now);
      let text = step.chunks.length > 0 ? format.chunks(step.chunks) : '';
      if (step.notes !== undefined) {
        addAnswerChanges(reply, summary, step.notes);
        text += encodeChangeComments(step.notes);
      }
      if (step.done) text += format.done();
      if (!started) {
        // Nothing generated yet: the error handler answers with the error's own status.
        if (step.error !== undefined && text === '') {
          before = { err: step.error };
          return true;
        }
        if (text === '') return true;
        commitStream(reply);
        started = true;
        if (!step.done && step.error === undefined && args.alone?.() === true) {
          // Written now, with the head, out of the cork Node holds a response's writes in to the
          // end of the turn: a read that holds many events would keep it there until every one
          // of them was decoded, normalized and encoded. The rest of the read goes in one write
          // at the turn's end; a first event alone in its read takes the one write it always did.
          const room = raw.write(text);
          raw.socket?.uncork();
          if (!room && !waiting) waitForClient();
          return !waiting;
        }
      }
      if (step.error !== undefined) {
        recordError(summary, step.error);
        text += format.failed(step.error);
      }
      if (step.done || step.error !== undefined) {
        // One write with the end: what this turn gathered, this step, the stream's close.
        const last = pending + text;
        pending = '';
        ended = true;
        endWith(last);
        return true;
      }
      pending += text;
      if (!flushQueued && pending !== '') {
        flushQueued = true;
        process.nextTick(flush);
      }
      if (!waiting) return true;
      // Taken, and the reading stops here until the client's socket drains.
      args.onClientWait?.(true);
      return false;
    },
  });

  try {
    await pump.finished;
    if (settling !== undefined) await settling;
    if (before !== undefined) throw before.err;
    // The steps always end with `done` or an error; anything else is a bug, not a clean end.
    if (!ended) throw new Error('the upstream steps ended without a finish');
  } catch (err) {
    if (!started || err instanceof ClientGoneError || args.signal.reason instanceof ClientGoneError) throw err;
    // After the headers: the format's failure (shutdown, a deadline, a bug), after what was taken.
    recordError(summary, err);
    // The stream's end is on its way already (being settled): nothing more to say.
    if (settling !== undefined) return await settling;
    const taken = pending;
    pending = '';
    ended = true;
    endWith(taken + format.failed(err));
    if (settling !== undefined) await settling;
  }
}

/** The chat format (or another `data:` format, `encode`): `data: <chunk>` events, `data: [DONE]`, one error event. */
export function sendStream(args: SendStreamArgs): Promise<void> {
  const { includeUsage } = args;
  const encode = args.encode ?? createChunkEncoder();
  return sendSteps(args, {
    chunks(chunks) {
      let text = '';
      for (const chunk of chunks) {
        if (!includeUsage && isUsageChunk(chunk)) continue;
        text += encode(chunk);
      }
      return text;
    },
    done: encodeDone,
    failed: (err) => encodeErrorEvent(toErrorResponse(err).body),
  });
}
