/**
 * The link's own close (svir shutting down) is not Redis going away: it logs no "Redis is
 * unreachable" warning and does not turn the state to down. compose.cluster.yaml's run showed
 * each replica's stop logging that warning after "SIGTERM, shutting down" (README, "Several
 * replicas": the warning means stored responses answer 503, which a closing replica never does).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisLink } from '../../src/cluster/redis-link.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { startRedis, type RedisProcess } from './redis-process.js';

let redis: RedisProcess;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.close();
});

describe('createRedisLink close()', () => {
  it('closing the link is quiet: no unreachable warning, the state stays up', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', secrets: [], destination });
    const link = createRedisLink({ url: redis.url, connectTimeoutMs: 1_000, commandTimeoutMs: 500, probeMs: 50 }, logger);
    const states: string[] = [];
    link.onState((state) => states.push(state));
    for (let i = 0; i < 200 && link.state() !== 'up'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(link.state()).toBe('up');
    expect(lines.join('')).toContain('cluster: Redis is reachable');
    // The server sees the connection go: the client's close has happened on both ends.
    const clientsBefore = await redis.command('CLIENT', 'LIST');
    await link.close();
    for (let i = 0; i < 200 && (await redis.command('CLIENT', 'LIST')).split('\n').length >= clientsBefore.split('\n').length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The probe interval would have run several times over by now (probeMs 50).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines.join('')).not.toContain('unreachable');
    expect(states).toEqual(['up']);
  });
});
