/**
 * What every routed request shares, whatever it asks of the backend (chat, embeddings, legacy
 * completions, Responses): the model resolved through the registry (404 `model_not_found`), the
 * candidates in balancing order, an abort on the client's disconnect and on shutdown, one more
 * try on the next candidate when the first fails before any byte reached the client, and per
 * attempt: the backend's queue slot (held for the whole answer), the first-token and idle
 * deadlines (with `: keepalive` comments on a stream), the request's metrics and its log line.
 *
 * A route says what one attempt does with the chosen backend, in three steps: `prepare` (the
 * call for this backend, before the queue: a request it cannot take fails without waiting),
 * `open` (send it; resolves once the server accepted), `respond` (read the answer, send it to
 * the client).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import type { Adapter, BackendInfo } from '../adapters/adapter.js';
import type { ActiveStreams } from '../lifecycle/active-streams.js';
import type { Balancer } from '../balance/create-balancer.js';
import { isBackendDownError } from '../balance/is-backend-down-error.js';
import { runWithFailover } from '../balance/run-with-failover.js';
import type { BackendType, Config } from '../config/schema.js';
import { inVocabulary, SvirError, toErrorResponse, type ParamVocabulary } from '../errors.js';
import type { SvirMetrics } from '../metrics/create-metrics.js';
import { RequestAbortController } from '../abort/request-abort-controller.js';
import { createRequestRecorder, type RecordedFinish, type RequestRecorder } from '../metrics/request-recorder.js';
import { encodeComment, encodeErrorEvent } from '../normalize/sse-encoder.js';
import type { QueueTicket } from '../queue/backend-queue.js';
import type { SharedLimits, SharedSlot } from '../cluster/create-shared-limits.js';
import type { BackendQueues } from '../queue/backend-queues.js';
import { recordError, startSummary, summaryOf, type RequestSummary } from '../logging/request-summary.js';
import type { BackendStateName, ModelRegistry, RouteCandidate } from '../router/create-model-registry.js';
import { createStreamDeadlines, type StreamDeadlines } from '../timeouts/stream-deadlines.js';
import type { UpstreamPool } from '../upstream/create-upstream-pool.js';
import { ClientGoneError } from './client-gone-error.js';
import { routeLabelOf } from './route-label.js';
import { commitStream } from './send-stream.js';

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
}

/** `x-svir-changes`: what svir changed, as a comma-separated list of header-safe phrases. */
function changesHeader(changes: readonly string[]): string {
  return changes.map((c) => headerSafe(c.replace(/[\r\n,]+/g, ' ').trim())).join(', ');
}

/**
 * A phrase may quote the client (a named tool_choice's function name): printable ASCII stays,
 * anything else is percent-encoded as UTF-8 bytes. Node refuses a header value with a control
 * character or a character above U+00FF, and a tool named in Japanese made that a 500, or a
 * stream that never answered.
 */
function headerSafe(phrase: string): string {
  let out = '';
  for (const char of phrase) {
    if (char !== '%' && char >= ' ' && char <= '~') out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Sets the svir headers of the backend now serving, dropping the changes an earlier call set
 * (`scope.changesHeader`): the first attempt of a request that changes nothing, nearly every
 * request, sets one header and removes none.
 */
function setSvirHeaders(scope: RequestScope, backend: string, changes: readonly string[]): void {
  const { reply } = scope;
  if (scope.changesHeader) reply.removeHeader('x-svir-changes');
  reply.header('x-svir-backend', backend);
  // Omitted when svir changed nothing.
  scope.changesHeader = changes.length > 0;
  if (scope.changesHeader) reply.header('x-svir-changes', changesHeader(changes));
}

function sameChanges(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((change, i) => change === b[i]);
}

/**
 * What one request carries from backend to backend; also what the in-flight set keeps of it
 * (ActiveRequest: controller, summary, recorder) for shutdown and the live page.
 */
interface RequestScope {
  reply: FastifyReply;
  route: BackendRoute;
  state: RouteState;
  summary: RequestSummary;
  recorder: RequestRecorder;
  /** The client's disconnect and shutdown. */
  controller: RequestAbortController;
  /** Whether an attempt set `x-svir-changes` (a later one removes it). */
  changesHeader: boolean;
}

const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter'] as const;

function isFinishReason(reason: string | undefined): reason is (typeof FINISH_REASONS)[number] {
  return FINISH_REASONS.some((known) => known === reason);
}

/** How the answer ended, for the requests metric, once the response is closed. */
function finishOf(summary: RequestSummary, clientLeft: boolean): RecordedFinish {
  if (clientLeft) return 'aborted';
  const reason = summary.finishReason;
  return summary.error === undefined && isFinishReason(reason) ? reason : 'error';
}

/** While the first token is awaited: commit the stream and send a comment the client skips. */
function sendKeepalive(reply: FastifyReply): void {
  const raw = reply.raw;
  if (raw.destroyed || raw.writableEnded) return;
  commitStream(reply);
  raw.write(encodeComment('keepalive'));
}

/**
 * Answers one routed request. `read` parses the client's body (throwing its 400) into what the
 * attempts do; it runs after the request's metrics started, so a refused body is counted too.
 * What it throws (the HTTP error handler answers it) is the request's error in its log line.
 */
export async function routeToBackend(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  read: (body: unknown) => BackendRoute | Promise<BackendRoute>,
): Promise<void> {
  const summary: RequestSummary = summaryOf(request) ?? startSummary(request, deps.now());
  summary.route = routeLabelOf(request.url);
  try {
    await answer(deps, request, reply, read, summary);
  } catch (err) {
    recordError(summary, err);
    throw err;
  }
}

async function answer(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  read: (body: unknown) => BackendRoute | Promise<BackendRoute>,
  summary: RequestSummary,
): Promise<void> {
  const state = deps.current();
  const recorder = createRequestRecorder(deps.metrics, deps.clock);
  // The attempts' controller while they run: the client's disconnect aborts the upstream
  // request at once (a local server stops generating when its connection closes).
  let running: RequestAbortController | undefined;
  // One listener for both (the metrics first, as the answer closed); `on`: a response closes once.
  reply.raw.on('close', () => {
    const clientLeft = !reply.raw.writableFinished;
    recorder.finish({ status: reply.raw.statusCode, finishReason: finishOf(summary, clientLeft) });
    if (clientLeft) running?.abort(new ClientGoneError());
  });

  // A route that asks a store first (Responses) gives a promise; the others, the route at once.
  const routed = read(request.body);
  const route = routed instanceof Promise ? await routed : routed;
  summary.model = route.model;
  summary.stream = route.stream;

  // A known model (nearly every request) is resolved at once, without a promise to await.
  const found = state.registry.resolveKnown?.(route.model) ?? (await state.registry.resolve(route.model));
  if (found.length === 0) throw new SvirError('model_not_found', { param: 'model' });
  // A known name only: the label set stays bounded whatever clients send.
  recorder.setModel(route.model);
  // The backends' states are asked only when there is a choice to make (most models have one
  // backend, and the balancer asks nothing then), and once per request.
  let states: Map<string, BackendStateName> | undefined;
  const candidates = deps.balancer.order(route.model, found, (candidate) => {
    const name = candidate.backend.config.name;
    states ??= new Map(state.registry.status().map((status) => [status.name, status.state]));
    const stats = deps.queues.get(name)?.stats();
    return { down: states.get(name) === 'down', load: stats === undefined ? 0 : stats.active + stats.queued };
  });

  // The client's disconnect (the listener above) or shutdown aborts the attempts.
  const abort = new RequestAbortController();
  running = abort;
  const scope: RequestScope = { reply, route, state, summary, recorder, controller: abort, changesHeader: false };
  deps.streams.add(scope);
  try {
    await runWithFailover(candidates, (candidate) => attempt(deps, scope, candidate), {
      // After a byte (a keepalive too) a second answer cannot be spliced in; after an abort
      // (client gone, shutdown) nobody wants one.
      clientCommitted: () => reply.raw.headersSent || abort.signal.aborted,
      onFailover(err, from, to) {
        request.log.warn(
          {
            backend: from.backend.config.name,
            next: to.backend.config.name,
            code: err instanceof SvirError ? err.code : 'internal_error',
          },
          'failover: trying the next backend for this model',
        );
      },
    });
  } catch (caught) {
    const err = route.params === undefined ? caught : inVocabulary(caught, route.params);
    if (abort.signal.reason instanceof ClientGoneError) {
      // Nobody to answer: keep Fastify from writing to a closed socket.
      summary.error = { code: 'client_closed', message: 'the client closed the connection', source: 'proxy' };
      if (!reply.sent) reply.hijack();
      return;
    }
    if (reply.raw.headersSent) {
      // Keepalives committed the stream before the upstream answered: an error event is all
      // that can still be said.
      recordError(summary, err);
      const late = route.lateError?.(err) ?? encodeErrorEvent(toErrorResponse(err).body);
      const text = late instanceof Promise ? await late : late;
      if (!reply.raw.writableEnded) reply.raw.end(text);
      return;
    }
    throw err;
  } finally {
    deps.streams.delete(scope);
    running = undefined;
  }
}

/** One try on one backend: its queue slot, its deadlines, the route's call. */
async function attempt(deps: RouteDeps, scope: RequestScope, candidate: RouteCandidate): Promise<void> {
  const { reply, route, state, summary, recorder, controller: abort } = scope;
  const { backend, upstreamModel } = candidate;
  const name = backend.config.name;
  summary.backend = name;
  recorder.setBackend(name);
  setSvirHeaders(scope, name, []);

  const prepared = route.prepare({
    backend,
    upstreamModel,
    adapter: deps.getAdapter(backend.config.type),
    state,
  });
  summary.changes = prepared.changes;
  // The headers are set again only when they say something new (most requests change nothing).
  if (prepared.changes.length > 0) setSvirHeaders(scope, name, prepared.changes);

  const queue = deps.queues.get(name);
  // A free slot is taken at once, with no promise to await (nearly every request on a proxy
  // sized for its load); only a wait is the queue's time.
  let ticket: QueueTicket | undefined = queue?.tryAcquire(abort.signal);
  if (ticket === undefined && queue !== undefined) {
    recorder.stopwatch.enter('queue');
    try {
      ticket = await queue.acquire(abort.signal);
    } finally {
      recorder.stopwatch.enter('svir');
    }
  }

  // Replicas: a slot of the backend's shared limit too, in the local queue's order, within what
  // is left of its queue timeout.
  let shared: SharedSlot | undefined;
  if (deps.sharedLimits !== undefined && queue !== undefined) {
    const { maxConcurrent, queueTimeoutMs } = queue.stats().limits;
    recorder.stopwatch.enter('queue');
    try {
      shared = await deps.sharedLimits.acquire(name, maxConcurrent, abort.signal, queueTimeoutMs - (ticket?.waitedMs ?? 0));
    } catch (err) {
      ticket?.release();
      throw err;
    } finally {
      recorder.stopwatch.enter('svir');
    }
  }

  // The deadlines count from here, but are made once the request has left (their timer and
  // listener are bookkeeping): the request's controller is their signal.
  const deadlinesFrom = performance.now();
  let deadlines: StreamDeadlines | undefined;
  try {
    recorder.upstreamSent();
    let opened: OpenedCall;
    let io: AttemptIO;
    try {
      // The request leaves in open's synchronous part: what is bookkeeping only is done after
      // it, while the server works, and not before the first byte of the answer.
      const opening = prepared.open(abort.signal, deps.pool.dispatcherFor(backend.config));
      deadlines = createStreamDeadlines({
        backend: name,
        timeouts: backend.config.timeouts,
        // Comments only fit a stream: a `stream: false` client waits for one JSON body.
        keepaliveMs: route.stream ? state.config.server.keepaliveMs : 0,
        onKeepalive: () => sendKeepalive(reply),
        controller: abort,
        startedAt: deadlinesFrom,
      });
      io = { reply, summary, recorder, deadlines };
      if (ticket !== undefined) recorder.queued(ticket.waitedMs);
      recorder.stopwatch.enter('upstream');
      opened = await opening;
    } finally {
      recorder.stopwatch.enter('svir');
    }
    state.registry.report(name, true);
    recorder.streamOpened();
    summary.changes = opened.changes;
    summary.retried = opened.retried;
    if (!sameChanges(opened.changes, prepared.changes)) setSvirHeaders(scope, name, opened.changes);
    await opened.respond(io);
  } catch (err) {
    if (isBackendDownError(err)) state.registry.report(name, false, err.message);
    if (err instanceof SvirError && err.source === 'upstream') recorder.upstreamError(err);
    throw err;
  } finally {
    // A deadline that ended the stream after its headers surfaces as an error event, not here.
    if (deadlines?.expired !== undefined) recorder.upstreamError(deadlines.expired);
    deadlines?.finish();
    recorder.streamClosed();
    shared?.release();
    ticket?.release();
  }
}
