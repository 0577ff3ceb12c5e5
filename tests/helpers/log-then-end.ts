/**
 * Child process of tests/logging/log-destination.test.ts: logs `count` lines through svir's
 * logger on the CLI's destination (stdout, written at the end of the loop turn), then ends as
 * `how` says, at once, without a flush of its own:
 * - 'exit', 'throw', 'reject': process.exit, an uncaught exception, an unhandled rejection;
 * - 'exit-busy-pool': 'exit' with libuv's thread pool held busy (a long pbkdf2 queued first; the
 *   test runs it with UV_THREADPOOL_SIZE=1), so that a write handed to the pool would still be
 *   queued when process.exit is called;
 * - 'flush-nonblocking': stdout non-blocking (the destination opens process.stdout, which on a
 *   pipe does that), each line padded to about 1 KB, then the logger's flush and process.exit
 *   once it is done, as the CLI's graceful shutdown does: the pipe fills, and the writes meet
 *   EAGAIN;
 * - 'trickle-nonblocking': as 'flush-nonblocking', but 20 lines a loop turn, so that lines come
 *   while what a partial write left still waits;
 * - 'full-then-trickle': stdout's pipe filled to its last byte (empty lines) first, `filled` on
 *   stderr, then as 'trickle-nonblocking': the first write meets EAGAIN with nothing written
 *   (the test reads nothing until it sees `filled`);
 * - 'exit-while-flushing': as 'flush-nonblocking', but `exiting` on stderr and process.exit(3)
 *   right after the flush began, while its callback (process.exit(0)) waits for the reader (the
 *   test reads nothing until it sees `exiting`);
 * - 'stay': alive until the test kills it; the lines must reach stdout meanwhile.
 *   node --import tsx tests/helpers/log-then-end.ts <count> exit|exit-busy-pool|flush-nonblocking|trickle-nonblocking|full-then-trickle|exit-while-flushing|throw|reject|stay
 */
import { pbkdf2 } from 'node:crypto';
import { writeSync } from 'node:fs';
import { createLogDestination } from '../../src/logging/create-log-destination.js';
import { createLogger } from '../../src/logging/create-logger.js';

const count = Number(process.argv[2] ?? '0');
const how = process.argv[3] ?? 'exit';
if (how === 'exit-busy-pool') pbkdf2('busy', 'pool', 200_000, 32, 'sha256', () => undefined);
const pad = ['flush-nonblocking', 'trickle-nonblocking', 'full-then-trickle', 'exit-while-flushing'].includes(how) ? 'x'.repeat(1_000) : undefined;
const logger = createLogger({ level: 'info', secrets: [], destination: createLogDestination() });
const log = (i: number): void => logger.info({ n: i, path: '/v1/chat/completions', status: 200, pad }, 'request');
if (how === 'full-then-trickle') {
  for (;;) {
    try {
      writeSync(1, '\n');
    } catch {
      break;
    }
  }
  process.stderr.write('filled\n');
}
if (how === 'trickle-nonblocking' || how === 'full-then-trickle') {
  let next = 0;
  const turn = (): void => {
    for (const end = Math.min(next + 20, count); next < end; next += 1) log(next);
    if (next < count) setImmediate(turn);
    else logger.flush(() => process.exit(0));
  };
  turn();
} else for (let i = 0; i < count; i += 1) log(i);

if (how === 'exit' || how === 'exit-busy-pool') process.exit(0);
if (how === 'flush-nonblocking') logger.flush(() => process.exit(0));
if (how === 'exit-while-flushing') {
  logger.flush(() => process.exit(0));
  process.stderr.write('exiting\n');
  process.exit(3);
}
if (how === 'throw') throw new Error('crash after logging');
if (how === 'reject') void Promise.reject(new Error('unhandled rejection after logging'));
if (how === 'stay') setInterval(() => undefined, 1_000);
