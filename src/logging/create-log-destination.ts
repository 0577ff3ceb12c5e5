/**
 * Where the svir program (cli.ts) writes its log lines: stdout, asynchronously. A line is handed
 * to the kernel as soon as no write is in flight; lines logged while one is gather and go out
 * together with the next write, so under load the writes batch by themselves and a line never
 * waits for a timer (a request's line is on stdout about when its answer is: tools and tests
 * that read the log right after an answer see it).
 *
 * A minimum batch length (SonicBoom's `minLength` with a periodic flush) was measured: it saved
 * about 5 µs of CPU per request line at low load, under 1% of a streamed request, and delayed
 * every line by up to its flush period. Not worth a log that lags.
 *
 * Nothing waiting is lost when the process exits: pino writes it synchronously on the process's
 * `exit` event (process.exit, an uncaught exception, the loop running empty), and the CLI's
 * graceful shutdown waits for the destination's flush before it exits. A write already handed to
 * the thread pool when process.exit is called can still be cut; only a kill the process cannot
 * see (SIGKILL) loses what waits.
 */
import { pino, type DestinationStream } from 'pino';

export function createLogDestination(fd = 1): DestinationStream {
  return pino.destination({ dest: fd, sync: false });
}
