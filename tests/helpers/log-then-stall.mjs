// Child process of tests/logging/log-destination.test.ts, in plain JavaScript on purpose: the
// TypeScript loader (tsx) opens process.stdout, which makes a piped stdout non-blocking, and the
// test is about a stdout as the built program finds it (blocking, never opened by Node).
// Logs `count` lines of about 1 KB through the built svir's logger and destination, then, in the
// loop turn after the one the lines are written in, `loop alive` on stderr, then the logger's
// flush and process.exit: the test reads nothing until it sees that line, so it comes only if a
// full pipe does not hold the event loop.
//   node tests/helpers/log-then-stall.mjs <root of a built svir> <count>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root = '', countText = '0'] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { createLogDestination } = await load('logging/create-log-destination.js');
const { createLogger } = await load('logging/create-logger.js');

const logger = createLogger({ level: 'info', secrets: [], destination: createLogDestination() });
const pad = 'x'.repeat(1_000);
for (let i = 0; i < Number(countText); i += 1) logger.info({ n: i, pad }, 'request');
// Queued after the destination's write of these lines (setImmediate runs in order).
setImmediate(() => {
  process.stderr.write('loop alive\n');
  logger.flush(() => process.exit(0));
});
