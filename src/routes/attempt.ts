/**
 * One try of a routed request on one backend: the svir headers, the route's prepared call, the
 * backend's queue slot (held for the whole answer), the first-token and idle deadlines, the
 * route's open and respond, and what the registry and the metrics learn from it.
 */
import type { FastifyReply } from 'fastify';
import type { RequestAbortController } from '../abort/request-abort-controller.js';
import { isBackendDownError } from '../balance/is-backend-down-error.js';
import { SvirError } from '../errors.js';
import type { RequestSummary } from '../logging/request-summary.js';
import type { RequestRecorder } from '../metrics/request-recorder.js';
import type { SharedSlot } from '../cluster/create-shared-limits.js';
import type { QueueTicket } from '../queue/backend-queue.js';
import type { RouteCandidate } from '../router/create-model-registry.js';
import { createStreamDeadlines, type StreamDeadlines } from '../timeouts/stream-deadlines.js';
import type { AttemptIO, BackendRoute, OpenedCall, RouteDeps, RouteState } from './backend-route.js';
import { sendKeepalive } from './send-keepalive.js';
import { sameChanges, setSvirHeaders } from './set-svir-headers.js';

/**
 * What one request carries from backend to backend; also what the in-flight set keeps of it
 * (ActiveRequest: controller, summary, recorder) for shutdown and the live page.
 */
export interface RequestScope {
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

/** One try on one backend: its queue slot, its deadlines, the route's call. */
export async function attempt(deps: RouteDeps, scope: RequestScope, candidate: RouteCandidate): Promise<void> {
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
        onKeepalive: () => sendKeepalive(reply, route.keepalive),
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
