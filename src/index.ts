/** svir as a library: what tests, the bench and embedders use. The program is cli.ts. */
export { buildServer } from './server.js';
export { createIdMaker, type IdKind } from './ids/create-id-maker.js';
export type { ServerDeps } from './lifecycle/server-deps.js';
export type { SvirRuntime } from './lifecycle/svir-runtime.js';
export { startServer, type StartedServer } from './lifecycle/start-server.js';
export { shutdownServer } from './lifecycle/shutdown-server.js';
export { ConfigError, loadConfig, parseConfig, type Env } from './config/load-config.js';
export { defaultConfig } from './config/default-config.js';
export { configSchema, type BackendConfig, type Config, type ConfigInput } from './config/schema.js';
export { normalizeBaseUrl } from './config/normalize-base-url.js';
export { collectSecrets } from './logging/collect-secrets.js';
export { createLogger, type Logger } from './logging/create-logger.js';
export {
  createModelRegistry,
  type BackendStatus,
  type ListedModel,
  type ModelRegistry,
  type ModelRegistryDeps,
  type RouteCandidate,
} from './router/create-model-registry.js';
export { createUpstreamPool, type UpstreamPool } from './upstream/create-upstream-pool.js';
export { SvirError, toErrorResponse, type ErrorCode } from './errors.js';
