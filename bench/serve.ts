/**
 * Entry of the mock's, the pass-throughs' and contract-minimum's child processes (svir and Portkey run as their own
 * CLIs): `node --import tsx --import ./child-guard.mjs bench/serve.ts '<spec JSON>'`. Listens on
 * 127.0.0.1 at the port the harness chose; SIGTERM closes the server and exits normally.
 */
import { serveSpecSchema } from './ipc.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { createBareNodePassThrough } from './bare-node.js';
import { createContractMinimum } from './contract-minimum.js';
import { BENCH_MODEL } from './svir-config.js';
import { createMockUpstream } from './mock-upstream.js';
import { createPassThrough } from './pass-through.js';

const spec = serveSpecSchema.parse(JSON.parse(process.argv[2] ?? '{}'));

let close: () => Promise<void>;
if (spec.role === 'contract-minimum') {
  const proxy = createContractMinimum({ upstream: spec.upstream, model: BENCH_MODEL });
  await proxy.app.listen({ host: '127.0.0.1', port: spec.port });
  close = () => proxy.close();
} else if (spec.role === 'pass-through') {
  const app = createPassThrough(spec.upstream);
  await app.listen({ host: '127.0.0.1', port: spec.port });
  close = async () => {
    app.server.closeAllConnections();
    await app.close();
  };
} else {
  const server =
    spec.role === 'mock'
      ? createMockUpstream({
          delayMs: spec.delayMs,
          stream: { chunks: spec.chunks, reasoning: spec.reasoning, toolCalls: spec.toolCalls, usage: spec.usage },
        })
      : createBareNodePassThrough(spec.upstream);
  await listenOnLoopback(server, spec.port);
  close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}
process.once('SIGTERM', () => {
  void close().finally(() => process.exit(0));
});
