/**
 * `cluster.redis` set: the link to Redis, the Responses store and the shared limits on it
 * (README "Several replicas"). Unset: nothing, and `redis` is never loaded.
 */
import type { Config } from '../config/schema.js';
import type { Logger } from '../logging/create-logger.js';
import type { ResponseStore } from '../store/response-store.js';
import { createRedisLink, type RedisLink } from './redis-link.js';
import { createRedisResponseStore } from './create-redis-response-store.js';
import { createSharedLimits, type SharedLimits } from './create-shared-limits.js';

export interface Cluster {
  link: RedisLink;
  store: ResponseStore;
  limits: SharedLimits;
  close(): Promise<void>;
}

export function startCluster(config: Config['cluster'], logger: Logger): Cluster | undefined {
  if (config.redis === undefined || config.redis === '') return undefined;
  const link = createRedisLink(
    { url: config.redis, connectTimeoutMs: config.connectTimeoutMs, commandTimeoutMs: config.commandTimeoutMs, probeMs: config.probeMs },
    logger,
  );
  const store = createRedisResponseStore(link, {
    keyPrefix: config.keyPrefix,
    ttlSeconds: config.responseTtlSeconds,
    maxResponseBytes: config.maxResponseBytes,
  });
  const limits = createSharedLimits(link, { keyPrefix: config.keyPrefix, leaseMs: config.leaseMs, replicas: config.replicas });
  return {
    link,
    store,
    limits,
    async close() {
      limits.close();
      await link.close();
    },
  };
}
