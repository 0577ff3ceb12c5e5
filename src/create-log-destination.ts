/**
 * Where the svir program (cli.ts) writes its log lines: stdout, asynchronously and in batches.
 * One per process: its flush interval is never cleared, so a library user building many servers
 * keeps pino's line-by-line destination (logging.ts) unless it passes this one itself.
 *
 * pino's asynchronous destination (SonicBoom) with no minimum length starts a write as soon as a
 * line comes while none is in flight: at a few hundred requests a second that is one write call
 * per request line, each a round trip through libuv's thread pool (about 8 µs of CPU a line on
 * a quiet loop, more than the line's own serialization). Here lines gather up to
 * LOG_BATCH_BYTES before a write, and every LOG_FLUSH_MS whatever waits is written: a line
 * reaches stdout at most about that late (SonicBoom's periodic flush, an unref'd interval that
 * also makes an empty write when nothing waits).
 *
 * Nothing waiting is lost when the process exits: pino writes it synchronously on the process's
 * `exit` event (process.exit, an uncaught exception, the loop running empty), and the CLI's
 * graceful shutdown waits for the destination's flush before it exits. A write already handed to
 * the thread pool when process.exit is called can still be cut, as before; only a kill the
 * process cannot see (SIGKILL) loses what waits.
 */
import { pino, type DestinationStream } from 'pino';

/** A write is started once this many bytes wait. */
export const LOG_BATCH_BYTES = 4096;
/** ...and every this many ms, whatever waits. */
export const LOG_FLUSH_MS = 100;

export function createLogDestination(fd = 1): DestinationStream {
  return pino.destination({ dest: fd, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
}
