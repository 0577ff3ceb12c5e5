/**
 * What a config reload does to a running server (SvirRuntime.reload): a new registry swapped in,
 * the config and the secrets derived from it put in force, queues resized, the Responses store's
 * limits and the balancer's rotation reset, the model refresh restarted at the new period, the
 * new backends asked at once. The server settings a reload cannot change, and `cluster`, are
 * named in a warning.
 */
import type { Balancer } from '../balance/create-balancer.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../logging/create-logger.js';
import type { BackendQueues } from '../queue/backend-queues.js';
import type { ModelRegistry } from '../router/create-model-registry.js';
import type { ModelRefresh } from '../router/start-model-refresh.js';
import type { MemoryResponseStore } from '../store/create-response-store.js';
import type { SwappableRegistry } from './create-swappable-registry.js';

/** The server settings that take effect only on restart: listen address, keys, body limit, client timeouts, log level. */
const RESTART_ONLY = [
  'host',
  'port',
  'apiKeys',
  'allowUnauthenticated',
  'bodyLimitBytes',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
  'logLevel',
] as const;

export interface ReloadTargets {
  logger: Logger;
  registry: SwappableRegistry;
  makeRegistry(config: Config): ModelRegistry;
  queues: BackendQueues;
  /** The in-memory Responses store (with `cluster.redis` it is left empty, and its limits still follow the config). */
  responseStore: MemoryResponseStore;
  balancer: Balancer;
  refresh: ModelRefresh;
  /** The config in force. */
  current(): Config;
  /** Puts the config in force, with what derives from it. */
  setConfig(config: Config): void;
}

export function reloadRuntime(targets: ReloadTargets, next: Config): void {
  const previous = targets.current();
  const restartOnly = RESTART_ONLY.filter(
    (key) => JSON.stringify(next.server[key]) !== JSON.stringify(previous.server[key]),
  );
  if (JSON.stringify(next.cluster) !== JSON.stringify(previous.cluster)) {
    targets.logger.warn('config reload: cluster takes effect only on restart');
  }
  if (restartOnly.length > 0) {
    targets.logger.warn(`config reload: server.${restartOnly.join(', server.')} take effect only on restart`);
  }
  const nextRegistry = targets.makeRegistry(next);
  targets.registry.swap(nextRegistry);
  targets.setConfig(next);
  targets.queues.sync(next.backends);
  targets.responseStore.setLimits(next.responses.store);
  targets.balancer.reset();
  targets.refresh.restart(next.modelRefreshMs);
  void nextRegistry.refresh();
}
