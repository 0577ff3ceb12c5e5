/**
 * Entry of the mock's and the pass-through's child processes (svir runs as its own CLI):
 * `node --import tsx --import ./child-guard.mjs bench/serve.ts '<spec JSON>'`. Listens on the
 * port the harness chose; SIGTERM closes the server and exits normally.
 */
import type { Server } from 'node:http';
import { serveSpecSchema } from './ipc.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { createMockUpstream } from './mock-upstream.js';
import { createPassThrough } from './pass-through.js';

const spec = serveSpecSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
const server: Server =
  spec.role === 'mock'
    ? createMockUpstream({
        delayMs: spec.delayMs,
        stream: { chunks: spec.chunks, reasoning: spec.reasoning, toolCalls: spec.toolCalls, usage: spec.usage },
      })
    : createPassThrough(spec.upstream);

await listenOnLoopback(server, spec.port);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
