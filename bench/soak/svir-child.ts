/**
 * svir in its own process for the soak, so that its memory is measured apart from the load
 * generator and the fake upstreams. Started with --expose-gc: a memory sample is taken after a
 * full collection, so that it shows what svir keeps, not what it has not collected yet.
 *
 * argv[2]: JSON `{ config, source }`. Says `{type:'ready', port}`, answers `{type:'memory'}`
 * with a sample, exits on `{type:'exit'}` or when the parent goes away.
 */
import { z } from 'zod';
import { configSchema } from '../../src/config/schema.js';

const specSchema = z.object({ config: z.unknown(), source: z.enum(['src', 'dist']) });
const messageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('memory'), id: z.number() }),
  z.object({ type: z.literal('exit') }),
]);

type ServerModule = typeof import('../../src/server.js');

async function loadServer(source: 'src' | 'dist'): Promise<ServerModule> {
  if (source === 'src') return import('../../src/server.js');
  const distModule: ServerModule = await import(new URL('../../dist/server.js', import.meta.url).href);
  return distModule;
}

async function main(): Promise<void> {
  const spec = specSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const config = configSchema.parse(spec.config);
  const { buildServer } = await loadServer(spec.source);
  const app = await buildServer(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir is not listening on TCP');

  process.on('disconnect', () => process.exit(0));
  process.on('message', (raw) => {
    const parsed = messageSchema.safeParse(raw);
    if (!parsed.success) return;
    if (parsed.data.type === 'exit') {
      setTimeout(() => process.exit(0), 5_000).unref();
      void app.close().then(() => process.exit(0));
      return;
    }
    globalThis.gc?.();
    const memory = process.memoryUsage();
    process.send?.({
      type: 'memory',
      id: parsed.data.id,
      heapUsedBytes: memory.heapUsed,
      rssBytes: memory.rss,
      externalBytes: memory.external,
    });
  });
  process.send?.({ type: 'ready', port: address.port });
}

main().catch((error: unknown) => {
  process.send?.({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
