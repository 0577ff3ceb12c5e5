/**
 * buildServer(config, deps) → the Fastify instance: routes, the auth hook, one error shape for
 * every failure (error handler, 404 handler, JSON parser), `x-request-id` on every answer and
 * one log line per request. Logger, clock, ids, upstream pool, registry and adapters can be
 * injected (tests, bench); by default they are the real ones.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Adapter } from './adapters/adapter.js';
import { getAdapter as defaultGetAdapter } from './adapters/index.js';
import { createActiveStreams, type ActiveStreams } from './lifecycle/active-streams.js';
import { createAuthHook } from './auth/create-auth-hook.js';
import { resolveApiKeys } from './auth/resolve-api-keys.js';
import type { Env } from './config/load-config.js';
import type { BackendType, Config } from './config/schema.js';
import { SvirError, toErrorResponse } from './errors.js';
import { answerClientError } from './http/answer-client-error.js';
import { bodyStillArriving, LINGER_LIMITS, lingerAfterRefusal, type LingerLimits } from './http/linger-after-refusal.js';
import { exceedsJsonDepth } from './http/exceeds-json-depth.js';
import { LazyChildLogger } from './logging/lazy-child-logger.js';
import { pathOf } from './http/path-of.js';
import { pooledRandomBytes } from './ids/pooled-random-bytes.js';
import { collectSecrets, createLogger, createRequestLineLogger, type Logger } from './logging/create-logger.js';
import { recordError, startSummary, summaryLine, summaryOf } from './logging/request-summary.js';
import { createBalancer } from './balance/create-balancer.js';
import { registerReadinessRoute } from './health/register-readiness-route.js';
import { createMetrics, type SvirMetrics } from './metrics/create-metrics.js';
import { registerMetricsRoute } from './metrics/register-metrics-route.js';
import { createMonitor } from './monitor/create-monitor.js';
import { registerMonitorRoutes } from './monitor/register-monitor-routes.js';
import { createBackendQueues, type BackendQueues } from './queue/backend-queues.js';
import { createSwappableRegistry } from './reload/create-swappable-registry.js';
import { createModelRegistry, type ModelRegistry } from './router/create-model-registry.js';
import { registerChatCompletionsRoute } from './routes/chat-completions.js';
import { registerCompletionsRoute } from './routes/completions.js';
import { registerEmbeddingsRoute } from './routes/embeddings.js';
import { registerModelsRoutes } from './routes/models.js';
import { registerResponsesRoutes, type ResponsesIdKind } from './routes/responses.js';
import { startCluster } from './cluster/start-cluster.js';
import { createResponseStore } from './store/create-response-store.js';
import { trackConnections, type ConnectionTracker } from './http/track-connections.js';
import { createUpstreamPool, type UpstreamPool } from './upstream/create-upstream-pool.js';
import { fetchModelList } from './upstream/fetch-model-list.js';

export type IdKind = 'completion' | 'call' | 'request';

export interface ServerDeps {
  /** A pino logger; by default one at `server.logLevel` on stdout, with every key redacted. */
  logger?: Logger;
  /** ms since the epoch. */
  now?: () => number;
  makeId?: (kind: IdKind) => string;
  /** Ids of the Responses route: a response (`resp_…`) and its items (`msg_…`, `rs_…`, `fc_…`). */
  makeResponsesId?: (kind: ResponsesIdKind) => string;
  /** Where `SVIR_API_KEYS` is read from; process.env by default. */
  env?: Env;
  pool?: UpstreamPool;
  registry?: ModelRegistry;
  getAdapter?: (type: BackendType) => Adapter;
  /** Monotonic ms for the durations in metrics; performance.now by default. */
  clock?: () => number;
  /** Also export Node's process metrics on /metrics (the CLI turns this on). */
  processMetrics?: boolean;
  /** Bounds of the read after an early refusal (tests make them small). */
  lingerLimits?: LingerLimits;
}

/** What the routes share, reachable as `app.svir` (shutdown, start-up summary, tests). */
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

const ALPHANUMERIC = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'latin1');

function randomAlphanumeric(length: number): string {
  const bytes = pooledRandomBytes(length);
  // 62 symbols from a byte: the modulo bias is irrelevant for ids that only need to be unique.
  // The pool's bytes are mapped in place (they are used once) and read as one string.
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = ALPHANUMERIC[(bytes[i] ?? 0) % ALPHANUMERIC.length] ?? 0;
  return bytes.toString('latin1');
}

/** Ids in the shapes OpenAI uses, so client code that looks at them is not surprised. */
export function defaultMakeId(kind: IdKind): string {
  if (kind === 'completion') return `chatcmpl-${randomAlphanumeric(29)}`;
  if (kind === 'call') return `call_${randomAlphanumeric(24)}`;
  return randomUUID();
}

/** Responses ids as OpenAI shapes them: a prefix and 48 hex digits. */
export function defaultMakeResponsesId(kind: ResponsesIdKind): string {
  return `${kind === 'response' ? 'resp' : kind}_${pooledRandomBytes(24).toString('hex')}`;
}

/** JSON.parse's own words (with the position) for a body the JSON parser refused. */
function syntaxErrorOf(body: string): string | undefined {
  try {
    JSON.parse(body);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : undefined;
  }
}

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const response = toErrorResponse(err);
  return reply.code(response.status).headers(response.headers).type('application/json; charset=utf-8').send(response.body);
}

/** Deeper bodies are refused: far beyond any real schema, far below what overflows JSON.stringify. */
const MAX_JSON_DEPTH = 1_000;

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
  const makeId = deps.makeId ?? defaultMakeId;
  const pool = deps.pool ?? createUpstreamPool();
  const makeRegistry = (from: Config): ModelRegistry =>
    deps.registry ??
    createModelRegistry(from, {
      now,
      listModels: (backend) =>
        fetchModelList(pool.dispatcherFor(backend.config), backend, {
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
  // Model lists are asked again every modelRefreshMs, which also keeps each backend's state
  // (balancing, /metrics) current when no request comes.
  const startRefresh = (ms: number): NodeJS.Timeout => {
    const timer = setInterval(() => void registry.refresh(), ms);
    timer.unref();
    return timer;
  };
  let refreshTimer = startRefresh(config.modelRefreshMs);
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
      const restartOnly = (
        [
          'host',
          'port',
          'apiKeys',
          'allowUnauthenticated',
          'bodyLimitBytes',
          'headersTimeoutMs',
          'requestTimeoutMs',
          'keepAliveTimeoutMs',
          'logLevel',
        ] as const
      ).filter(
        (key) => JSON.stringify(next.server[key]) !== JSON.stringify(runtime.config.server[key]),
      );
      if (JSON.stringify(next.cluster) !== JSON.stringify(runtime.config.cluster)) {
        logger.warn('config reload: cluster takes effect only on restart');
      }
      if (restartOnly.length > 0) {
        logger.warn(`config reload: server.${restartOnly.join(', server.')} take effect only on restart`);
      }
      const nextRegistry = makeRegistry(next);
      registry.swap(nextRegistry);
      runtime.config = next;
      routeSecrets = [...collectSecrets(next), ...apiKeys];
      queues.sync(next.backends);
      responseStore.setLimits(next.responses.store);
      balancer.reset();
      clearInterval(refreshTimer);
      refreshTimer = startRefresh(next.modelRefreshMs);
      void nextRegistry.refresh();
    },
  };
  app.decorate('svir', runtime);

  // Bad JSON is the client's 400 `invalid_json`, in the one shape; prototype poisoning is refused.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Only JSON is a request body here: anything else (text/plain included) is 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const body = typeof raw === 'string' ? raw : raw.toString('utf8');
    if (exceedsJsonDepth(body, MAX_JSON_DEPTH)) {
      done(new SvirError('invalid_request', { message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` }), undefined);
      return;
    }
    parseJson(request, body, (err, value) => {
      if (err === null || err === undefined) {
        done(null, value);
        return;
      }
      const empty = body.trim().length === 0;
      const reason = syntaxErrorOf(body) ?? (err instanceof Error ? err.message : String(err));
      done(
        new SvirError('invalid_json', {
          message: empty ? 'The request body is empty.' : `The request body is not valid JSON: ${reason}`,
        }),
        undefined,
      );
    });
  });

  // Every request has the summary's slot from the start (one shape for all requests).
  app.decorateRequest('svirSummary', null);
  const lineLog = createRequestLineLogger(logger);
  // Hooks here take `done` rather than returning a promise: each request runs them, and an
  // async hook costs a promise and a turn of the microtask queue for nothing it waits on.
  app.addHook('onRequest', (request, reply, done) => {
    const summary = startSummary(request, now());
    reply.header('x-request-id', request.id);
    // `on`, not `once`: a response closes once, and a once-listener is wrapped, then taken off
    // the listener list when it runs, on every request.
    reply.raw.on('close', () => {
      const raw = reply.raw;
      const line = summaryLine(request, summary, raw.statusCode, now(), !raw.writableFinished);
      if (raw.statusCode >= 500 || summary.error?.code === 'internal_error') lineLog.warn(line, 'request');
      else lineLog.info(line, 'request');
      // The live page's recent requests: the routed ones (docs/live-page.md).
      if (summary.route !== undefined) monitor.finished({ route: summary.route, startedAt: summary.startedAt, line });
    });
    if (runtime.closing) {
      reply.header('connection', 'close');
      done(new SvirError('backend_unavailable', { message: 'svir is shutting down.', retryAfter: 1 }));
      return;
    }
    done();
  });
  // Keys are read once at start (a reload does not change them): without keys, no hook at all.
  if (apiKeys.length > 0) app.addHook('onRequest', createAuthHook(apiKeys));
  // An answer that goes out before the body arrived (413, 415, 401, 404, ...) is followed by a
  // lingering close, so the client reads it instead of a connection reset.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyStillArriving(request.raw)) lingerAfterRefusal(request.raw, reply.raw, deps.lingerLimits ?? LINGER_LIMITS);
    done(null, payload);
  });

  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const summary = summaryOf(request);
    if (summary !== undefined && summary.error === undefined) recordError(summary, err);
    if (toErrorResponse(err).body.error.code === 'internal_error') request.log.error({ err }, 'svir failed unexpectedly');
    return sendError(reply, err);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    // `/` is the live page's, for browsers only: any other request there is answered as before
    // the page existed (404).
    const otherMethod =
      path !== '/' && ['GET', 'POST'].some((method) => method !== request.method && app.hasRoute({ url: path, method }));
    const error = otherMethod
      ? new SvirError('method_not_allowed', { message: `${request.method} is not allowed on ${path}.` })
      : new SvirError('not_found', { message: `No route for ${request.method} ${path}.` });
    const summary = summaryOf(request);
    if (summary !== undefined) recordError(summary, error);
    return sendError(reply, error);
  });

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
    getAdapter: deps.getAdapter ?? defaultGetAdapter,
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
  registerResponsesRoutes(app, { ...routeDeps, makeResponsesId: deps.makeResponsesId ?? defaultMakeResponsesId, store: cluster?.store ?? responseStore });
  registerCompletionsRoute(app, routeDeps);
  registerEmbeddingsRoute(app, routeDeps);

  app.addHook('onClose', async () => {
    clearInterval(refreshTimer);
    await cluster?.close();
    await pool.close();
  });
  return app;
}
