/**
 * Where the svir program (cli.ts) writes its log lines: stdout, from the main thread, in the order
 * they were logged. The lines logged in one turn of the event loop gather and go out in one
 * write at the end of that turn (setImmediate), so under load the writes batch by themselves and
 * a line never waits for a timer (a request's line is on stdout about when its answer is: tools
 * and tests that read the log right after an answer see it).
 *
 * No write is ever in flight outside the main thread. pino's asynchronous SonicBoom (the
 * destination before this one) hands each write to libuv's thread pool; on process.exit it
 * writes what waits synchronously, while the write in the pool could still be queued behind other
 * work, so that write (the first line of the batch) came out after the ones logged later
 * (tests/logging/log-destination.test.ts, with the pool held busy). Writing from the main thread
 * costs no more (bench/log-destination.ts: CPU per line measured side by side).
 *
 * Nothing waiting is lost when the process exits: the destination writes it on the process's
 * `exit` event (process.exit, an uncaught exception, the loop running empty), and a line logged
 * after that is written at once; the CLI's graceful shutdown calls flush() before it exits. Only
 * a kill the process cannot see (SIGKILL) loses what waits, or a reader of stdout that stays
 * stalled through the exit's wait (below).
 *
 * A reader that stops reading costs memory, not the event loop: stdout (or stderr) is opened
 * through Node's process.stdout first, and on a pipe or a socket that makes the descriptor
 * non-blocking, so a full pipe answers EAGAIN instead of holding the write; the lines wait,
 * tried again on a short timer while the process runs, and at exit for up to EXIT_WAIT_MS (a
 * file never fills; a terminal Node keeps blocking). When the reader is gone (EPIPE), lines are
 * dropped, as pino does.
 */
import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

/** How long a write that meets EAGAIN waits before it tries again, while the process runs. */
const RETRY_MS = 10;
/** How long the exit flush keeps trying a descriptor that answers EAGAIN. */
const EXIT_WAIT_MS = 1_000;

export interface LogDestination extends DestinationStream {
  /** Writes what waits now; `done` once it is all written, unless the process exits first (pino's logger.flush calls it). */
  flush(done?: (err?: Error) => void): void;
  /** Writes what waits before returning (the `exit` event's flush). */
  flushSync(): void;
}

function isCode(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

export function createLogDestination(fd = 1): LogDestination {
  // Opened here, not at the first write: on a pipe or a socket libuv puts the descriptor in
  // non-blocking mode (the stream itself is never written to, and does not keep the process up).
  if (fd === 1) void process.stdout.fd;
  else if (fd === 2) void process.stderr.fd;
  /**
   * What a partial write left of the lines it was given (all of them when the descriptor took
   * none: EAGAIN), to go out first. Lines logged meanwhile wait in `waiting` and are never copied
   * onto it: with a reader that stalls, a copy per line grew with everything waiting (the event
   * loop spent itself copying).
   */
  let cut: Buffer | undefined;
  /** The lines not yet handed to the kernel, oldest first, after `cut`. */
  let waiting = '';
  let scheduled = false;
  let retrying = false;
  let exiting = false;
  let broken = false;
  let whenWritten: ((err?: Error) => void)[] = [];

  /** Hands what waits to the kernel; false when the descriptor would block (EAGAIN). */
  const writeWaiting = (): boolean => {
    while (cut !== undefined || waiting.length > 0) {
      const bytes = cut;
      const length = bytes === undefined ? Buffer.byteLength(waiting) : bytes.length;
      let written: number;
      try {
        written = bytes === undefined ? writeSync(fd, waiting) : writeSync(fd, bytes);
      } catch (err) {
        if (isCode(err, 'EAGAIN')) {
          // Kept as bytes until the reader makes room: each try again then costs no encoding of
          // all that waits, and the lines logged meanwhile wait after it.
          if (bytes === undefined) {
            cut = Buffer.from(waiting);
            waiting = '';
          }
          return false;
        }
        cut = undefined;
        waiting = '';
        if (isCode(err, 'EPIPE')) {
          broken = true;
          return true;
        }
        throw err;
      }
      if (bytes !== undefined) cut = written >= length ? undefined : bytes.subarray(written);
      else {
        if (written < length) cut = Buffer.from(waiting).subarray(written);
        waiting = '';
      }
    }
    return true;
  };

  const settle = (): void => {
    const callbacks = whenWritten;
    whenWritten = [];
    for (const done of callbacks) done();
  };

  const writeOut = (): void => {
    scheduled = false;
    retrying = false;
    if (writeWaiting()) {
      settle();
      return;
    }
    retrying = true;
    setTimeout(writeOut, RETRY_MS);
  };

  const flushSync = (): void => {
    const deadline = Date.now() + EXIT_WAIT_MS;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!writeWaiting() && Date.now() < deadline) Atomics.wait(pause, 0, 0, RETRY_MS);
    settle();
  };

  process.on('exit', () => {
    exiting = true;
    // The process ends with this listener: a flush's callback is not called. The CLI's exits,
    // and a process.exit here would replace the exit code (a second signal's 1 became the
    // shutdown's 0) and skip the listeners after this one.
    whenWritten = [];
    flushSync();
  });

  return {
    write(line: string): void {
      if (broken) return;
      waiting += line;
      if (exiting) flushSync();
      else if (!scheduled && !retrying) {
        scheduled = true;
        setImmediate(writeOut);
      }
    },
    flush(done?: (err?: Error) => void): void {
      if (done !== undefined) whenWritten.push(done);
      if (!retrying) writeOut();
    },
    flushSync,
  };
}
