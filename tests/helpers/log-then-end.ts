/**
 * Child process of tests/logging/log-destination.test.ts: logs `count` lines through svir's
 * logger on the CLI's destination (stdout, asynchronous), then ends as `how` says, at once, without a
 * flush of its own.
 *   node --import tsx tests/helpers/log-then-end.ts <count> exit|throw|reject|stay
 */
import { createLogDestination } from '../../src/logging/create-log-destination.js';
import { createLogger } from '../../src/logging/create-logger.js';

const count = Number(process.argv[2] ?? '0');
const how = process.argv[3] ?? 'exit';
const logger = createLogger({ level: 'info', secrets: [], destination: createLogDestination() });
for (let i = 0; i < count; i += 1) logger.info({ n: i, path: '/v1/chat/completions', status: 200 }, 'request');

if (how === 'exit') process.exit(0);
if (how === 'throw') throw new Error('crash after logging');
if (how === 'reject') void Promise.reject(new Error('unhandled rejection after logging'));
// 'stay': alive until the test kills it; the lines must reach stdout meanwhile.
if (how === 'stay') setInterval(() => undefined, 1_000);
