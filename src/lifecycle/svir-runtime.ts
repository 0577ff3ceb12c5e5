/** What the routes share, reachable as `app.svir`: shutdown, the start-up summary and tests read it. */
import type { Config } from '../config/schema.js';
import type { ConnectionTracker } from '../http/track-connections.js';
import type { Logger } from '../logging/create-logger.js';
import type { SvirMetrics } from '../metrics/create-metrics.js';
import type { BackendQueues } from '../queue/backend-queues.js';
import type { ModelRegistry } from '../router/create-model-registry.js';
import type { UpstreamPool } from '../upstream/create-upstream-pool.js';
import type { ActiveStreams } from './active-streams.js';

export interface SvirRuntime {
  /** The config in force (a reload replaces it). */
  config: Config;
  /** Always the same object; a reload swaps the registry inside it. */
  registry: ModelRegistry;
  pool: UpstreamPool;
  streams: ActiveStreams;
  /** The clients' open connections (shutdown closes the unused ones). */
  connections: ConnectionTracker;
  logger: Logger;
  queues: BackendQueues;
  metrics: SvirMetrics;
  /** Set by shutdown: new requests are refused with 503. */
  closing: boolean;
  /**
   * Puts a validated config in force for new requests: backends, models, aliases, queues,
   * timeouts, keepalive and reasoning. Open streams finish on what they started with. The
   * listen address, keys, body limit, client timeouts and log level need a restart (a warning
   * says so).
   */
  reload(config: Config): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    svir: SvirRuntime;
  }
}
