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
import { RequestAbortController } from '../abort/request-abort-controller.js';
import { runWithFailover } from '../balance/run-with-failover.js';
import { inVocabulary, SvirError, toErrorResponse } from '../errors.js';
import { recordError } from '../logging/record-error.js';
import { startSummary } from '../logging/start-summary.js';
import { summaryOf } from '../logging/summary-of.js';
import type { RequestSummary } from '../logging/request-summary.js';
import { createRequestRecorder } from '../metrics/request-recorder.js';
import { encodeErrorEvent } from '../normalize/sse-encoder.js';
import type { BackendStateName } from '../router/create-model-registry.js';
import { attempt, type RequestScope } from './attempt.js';
import type { BackendRoute, RouteDeps } from './backend-route.js';
import { ClientGoneError } from './client-gone-error.js';
import { finishOf } from './finish-of.js';
import { routeLabelOf } from './route-label.js';

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
