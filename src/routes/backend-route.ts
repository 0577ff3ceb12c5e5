/**
 * The contract between routeToBackend and a route: what the route gives (a BackendRoute: the
 * model, whether the client streams, how to prepare one attempt's call) and what each step of an
 * attempt is handed (the target backend, the opened call, the reply and its bookkeeping).
 */
import type { FastifyReply } from 'fastify';
import type { Dispatcher } from 'undici';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import type { Adapter, BackendInfo } from '../adapters/adapter.js';
import type { Balancer } from '../balance/create-balancer.js';
import type { SharedLimits } from '../cluster/create-shared-limits.js';
import type { BackendType, Config } from '../config/schema.js';
import type { ParamVocabulary } from '../errors.js';
import type { ActiveStreams } from '../lifecycle/active-streams.js';
import type { RequestSummary } from '../logging/request-summary.js';
import type { SvirMetrics } from '../metrics/create-metrics.js';
import type { RequestRecorder } from '../metrics/request-recorder.js';
import type { BackendQueues } from '../queue/backend-queues.js';
import type { ModelRegistry } from '../router/create-model-registry.js';
import type { StreamDeadlines } from '../timeouts/stream-deadlines.js';
import type { UpstreamPool } from '../upstream/create-upstream-pool.js';

/**
 * What a config reload swaps; a request keeps the config and secrets it started with to its
 * end. The registry is the server's swappable one: what a request reports about a backend
 * reaches the registry in force.
 */
export interface RouteState {
  config: Config;
  registry: ModelRegistry;
  /** Every configured key, scrubbed from server messages. */
  secrets: readonly string[];
}

export interface RouteDeps {
  current(): RouteState;
  pool: UpstreamPool;
  getAdapter(type: BackendType): Adapter;
  /** ms since the epoch. */
  now(): number;
  streams: ActiveStreams;
  /** Per-backend slots and queues (maxConcurrent, maxQueue, queueTimeoutMs), kept across reloads. */
  queues: BackendQueues;
  balancer: Balancer;
  metrics: SvirMetrics;
  /** Monotonic ms, for durations in metrics. */
  clock(): number;
  /** With `cluster.redis`: each backend's maxConcurrent shared by the replicas, after the local queue. */
  sharedLimits?: SharedLimits;
}

/** The backend one attempt was given, and what calling it takes. */
export interface AttemptTarget {
  backend: BackendInfo;
  /** The id the server knows the model by. */
  upstreamModel: string;
  adapter: Adapter;
  state: RouteState;
}

/** What an attempt answers the client with, once its server accepted the call. */
export interface AttemptIO {
  reply: FastifyReply;
  summary: RequestSummary;
  recorder: RequestRecorder;
  /** Report each upstream event to them; their signal aborts on a deadline or the client's leave. */
  deadlines: StreamDeadlines;
}

export interface PreparedCall {
  /** What svir changed for this backend (the `x-svir-changes` header). */
  changes: string[];
  /**
   * Sends the call through the backend's connection pool; resolves once the server accepted
   * it, throws the client's error otherwise.
   */
  open(signal: AbortSignalLike, dispatcher: Dispatcher): Promise<OpenedCall>;
}

export interface OpenedCall {
  /** The changes again, with a retry without a field the server refused, if one was made. */
  changes: string[];
  retried: boolean;
  /** Reads the server's answer and sends it to the client. */
  respond(io: AttemptIO): Promise<void>;
}

export interface BackendRoute {
  /** The model the client named. */
  model: string;
  /** The client gets a stream: keepalives may commit it while the first token is awaited. */
  stream: boolean;
  /** The call for this backend; a request the backend cannot take throws here, before its queue. */
  prepare(target: AttemptTarget): PreparedCall;
  /** The bytes that end a committed stream with this error; a chat error event by default. */
  lateError?(err: unknown): string | Promise<string>;
  /**
   * The route's names for the chat fields its attempts' errors name (an adapter's refusal, the
   * backend's answer): applied to every error that leaves them. The chat route has none.
   */
  params?: ParamVocabulary;
  /** The keepalive's bytes while the first token is awaited; a `: keepalive` comment by default. */
  keepalive?: string;
}
