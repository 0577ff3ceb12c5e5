/**
 * buildServer(config, deps) → the Fastify instance: routes, the auth hook, one error shape for
 * every failure (error handler, 404 handler, JSON parser: src/http/), `x-request-id` on every
 * answer and one log line per request. Logger, clock, ids, upstream pool, registry and adapters
 * can be injected (ServerDeps, tests, bench); by default they are the real ones.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { getAdapter as defaultGetAdapter } from './adapters/index.js';
import { createAuthHook } from './auth/create-auth-hook.js';
import { resolveApiKeys } from './auth/resolve-api-keys.js';
import type { Config } from './config/schema.js';
import { answerClientError } from './http/answer-client-error.js';
import { createNotFoundHandler } from './http/create-not-found-handler.js';
import { handleError } from './http/handle-error.js';
import { createLingerHook } from './http/create-linger-hook.js';
import { registerJsonParser } from './http/register-json-parser.js';
import { trackConnections } from './http/track-connections.js';
import { createIdMaker } from './ids/create-id-maker.js';
import { createRandomBytesPool } from './ids/create-random-bytes-pool.js';
import { createResponsesIdMaker } from './ids/create-responses-id-maker.js';
import { createActiveStreams } from './lifecycle/active-streams.js';
import { createClosingHook } from './lifecycle/create-closing-hook.js';
import type { ServerDeps } from './lifecycle/server-deps.js';
import type { SvirRuntime } from './lifecycle/svir-runtime.js';
import { LazyChildLogger } from './logging/lazy-child-logger.js';
import { collectSecrets } from './logging/collect-secrets.js';
import { createLogger } from './logging/create-logger.js';
import { createRequestLineLogger } from './logging/create-request-line-logger.js';
import { createRequestLogHook } from './logging/create-request-log-hook.js';
import { createBalancer } from './balance/create-balancer.js';
import { startCluster } from './cluster/start-cluster.js';
import { registerReadinessRoute } from './health/register-readiness-route.js';
import { createMetrics } from './metrics/create-metrics.js';
import { registerMetricsRoute } from './metrics/register-metrics-route.js';
import { createMonitor } from './monitor/create-monitor.js';
import { registerMonitorRoutes } from './monitor/register-monitor-routes.js';
import { createBackendQueues } from './queue/backend-queues.js';
import { createSwappableRegistry } from './reload/create-swappable-registry.js';
import { reloadRuntime } from './reload/reload-runtime.js';
import { createModelRegistry, type ModelRegistry } from './router/create-model-registry.js';
import { startModelRefresh } from './router/start-model-refresh.js';
import { registerChatCompletionsRoute } from './routes/chat-completions.js';
import { registerCompletionsRoute } from './routes/completions.js';
import { registerEmbeddingsRoute } from './routes/embeddings.js';
import { registerModelsRoutes } from './routes/models.js';
import { createMessageIdMaker } from './ids/create-message-id-maker.js';
import { registerMessagesRoutes } from './routes/messages.js';
import { registerResponsesRoutes } from './routes/responses.js';
import { createResponseStore } from './store/create-response-store.js';
import { createUpstreamPool } from './upstream/create-upstream-pool.js';
import { fetchModelList } from './upstream/fetch-model-list.js';
import { fetchServerContext } from './upstream/fetch-server-context.js';

/** How often Node looks for connections past their header or request timeout. */
const CONNECTION_CHECK_MS = 1_000;

/** How long discovery may take per backend, on top of the connect timeout. */
const DISCOVERY_EXTRA_MS = 5_000;

export function buildServer(config: Config, deps: ServerDeps = {}): FastifyInstance {
  const env = deps.env ?? process.env;
  const apiKeys = resolveApiKeys(config.server.apiKeys, env);
  const secrets = [...collectSecrets(config), ...apiKeys];
  const logger = deps.logger ?? createLogger({ level: config.server.logLevel, secrets });
  const now = deps.now ?? Date.now;
  // One pool of random bytes for this server's ids (src/ids/create-random-bytes-pool.ts).
  const randomBytes = createRandomBytesPool();
  const makeId = deps.makeId ?? createIdMaker(randomBytes);
  const pool = deps.pool ?? createUpstreamPool();
  const getAdapter = deps.getAdapter ?? defaultGetAdapter;
  const makeRegistry = (from: Config): ModelRegistry =>
    deps.registry ??
    createModelRegistry(from, {
      now,
      listModels: (backend) =>
        fetchModelList(pool.dispatcherFor(backend.config), backend, {
          timeoutMs: backend.config.timeouts.connectMs + DISCOVERY_EXTRA_MS,
        }),
      probeContext: (backend) =>
        fetchServerContext(pool.dispatcherFor(backend.config), backend, getAdapter(backend.config.type), {
          timeoutMs: backend.config.timeouts.connectMs + DISCOVERY_EXTRA_MS,
        }),
    });
  const registry = createSwappableRegistry(makeRegistry(config));
  const streams = createActiveStreams();
  const queues = createBackendQueues(config.backends);
  const balancer = createBalancer();
  // With `cluster.redis`: the Responses store and the limits are shared (README "Several
  // replicas"); the in-memory store is then left empty.
  const cluster = startCluster(config.cluster, logger);
  const metrics = createMetrics({ processMetrics: deps.processMetrics === true });
  const responseStore = createResponseStore(config.responses.store);
  const monitor = createMonitor();
  metrics.watch({ queues: () => queues.snapshot(), backends: () => registry.status() });

  // Typed as Fastify's base logger so the instance is a plain FastifyInstance for the routes.
  const loggerInstance: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance,
    // One line per request is written by the hook below, with what svir knows about it.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    // Node's defaults let a client trickle its headers for a minute and more (and Fastify turns
    // the whole-request timeout off); the checks run every second, not every 30 s.
    requestTimeout: config.server.requestTimeoutMs,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.server.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(CONNECTION_CHECK_MS, config.server.headersTimeoutMs),
    },
    genReqId: () => makeId('request'),
    // request.log is made only when it first writes (lazy-child-logger.ts says why).
    childLoggerFactory: (parent, bindings, options) => new LazyChildLogger(parent, bindings, options),
    requestIdHeader: false,
    // Shutdown answers late requests itself, in the one error shape.
    return503OnClosing: false,
    // A request the HTTP parser refuses is answered in the one error shape too.
    clientErrorHandler: answerClientError,
  });
  let routeSecrets: readonly string[] = secrets;
  const refresh = startModelRefresh(registry, config.modelRefreshMs);
  const runtime: SvirRuntime = {
    config,
    registry,
    pool,
    streams,
    connections: trackConnections(app.server),
    logger,
    queues,
    metrics,
    closing: false,
    reload(next) {
      reloadRuntime(
        {
          logger,
          registry,
          makeRegistry,
          queues,
          responseStore,
          balancer,
          refresh,
          current: () => runtime.config,
          setConfig(config) {
            runtime.config = config;
            routeSecrets = [...collectSecrets(config), ...apiKeys];
          },
        },
        next,
      );
    },
  };
  app.decorate('svir', runtime);

  registerJsonParser(app);

  // Every request has the summary's slot from the start (one shape for all requests).
  app.decorateRequest('svirSummary', null);
  app.addHook('onRequest', createRequestLogHook({ now, lineLog: createRequestLineLogger(logger), monitor }));
  app.addHook('onRequest', createClosingHook(runtime));
  // Keys are read once at start (a reload does not change them): without keys, no hook at all.
  if (apiKeys.length > 0) app.addHook('onRequest', createAuthHook(apiKeys));
  app.addHook('onSend', createLingerHook(runtime.connections, deps.lingerLimits));

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(createNotFoundHandler(app));

  app.get('/healthz', async () => ({ status: 'ok' }));
  if (cluster !== undefined) {
    metrics.watchCluster(() => ({
      up: cluster.link.state() === 'up',
      latencyMs: cluster.link.latencyMs(),
      replicas: cluster.limits.liveReplicas(),
      slots: cluster.limits.snapshot(),
    }));
  }
  registerReadinessRoute(app, { registry, cluster: cluster?.link });
  registerMetricsRoute(app, { metrics });
  registerModelsRoutes(app, { registry });
  registerMonitorRoutes(app, { registry: () => registry, queues, streams, monitor, now, clock: deps.clock ?? (() => performance.now()) });
  const routeDeps = {
    current: () => ({ config: runtime.config, registry, secrets: routeSecrets }),
    pool,
    getAdapter,
    makeId,
    now,
    streams,
    queues,
    balancer,
    metrics,
    clock: deps.clock ?? (() => performance.now()),
    sharedLimits: cluster?.limits,
  };
  registerChatCompletionsRoute(app, routeDeps);
  registerResponsesRoutes(app, { ...routeDeps, makeResponsesId: deps.makeResponsesId ?? createResponsesIdMaker(randomBytes), store: cluster?.store ?? responseStore });
  registerMessagesRoutes(app, { ...routeDeps, makeMessageId: deps.makeMessageId ?? createMessageIdMaker(randomBytes) });
  registerCompletionsRoute(app, routeDeps);
  registerEmbeddingsRoute(app, routeDeps);

  app.addHook('onClose', async () => {
    refresh.stop();
    await cluster?.close();
    await pool.close();
  });
  return app;
}
