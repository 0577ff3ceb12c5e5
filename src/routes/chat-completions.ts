/**
 * `POST /v1/chat/completions`: validate → route the model → the backend's adapter rewrites the
 * request → one upstream stream → clean chunks, streamed to the client or folded into one
 * `chat.completion`. Response headers wait for the first clean chunk, so every failure before
 * generation is a real HTTP status; a failure after them ends the stream with one error event.
 *
 * Around the upstream call: the backends that serve the model in balancing order, one more try
 * on the next one when the first fails before any byte reached the client; the backend's queue
 * (a slot held for the whole answer); the first-token and idle deadlines, with `: keepalive`
 * comments while a long prompt is read; and the request's metrics.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Adapter, StreamContext } from '../adapters/adapter.js';
import type { ActiveStreams } from '../active-streams.js';
import type { Balancer } from '../balance/create-balancer.js';
import { isBackendDownError } from '../balance/is-backend-down-error.js';
import { runWithFailover } from '../balance/run-with-failover.js';
import { chatRequestSchema, type ChatRequest } from '../chat-request.js';
import type { BackendType, Config } from '../config/schema.js';
import { SvirError, toErrorResponse } from '../errors.js';
import type { SvirMetrics } from '../metrics/create-metrics.js';
import { createRequestRecorder, type RecordedFinish, type RequestRecorder } from '../metrics/request-recorder.js';
import { createNormalizer, type NormalizerStep } from '../normalize/normalizer.js';
import { createSseDecoder } from '../normalize/sse-decoder.js';
import { encodeComment, encodeErrorEvent } from '../normalize/sse-encoder.js';
import type { QueueTicket } from '../queue/backend-queue.js';
import type { BackendQueues } from '../queue/backend-queues.js';
import { recordError, startSummary, summaryOf, type RequestSummary } from '../request-summary.js';
import type { ModelRegistry, RouteCandidate } from '../router/create-model-registry.js';
import { createStreamDeadlines, type StreamDeadlines } from '../timeouts/stream-deadlines.js';
import { watchSteps } from '../timeouts/watch-steps.js';
import type { UpstreamPool } from '../upstream/create-upstream-pool.js';
import { openChatStream, type OpenedChatStream } from '../upstream/open-chat-stream.js';
import { readCleanSteps } from '../upstream/read-clean-steps.js';
import { buildStreamContext } from './build-stream-context.js';
import { invalidRequestError } from './invalid-request-error.js';
import { sendCompletion } from './send-completion.js';
import { commitStream, sendStream } from './send-stream.js';
import { ClientGoneError } from './client-gone-error.js';

/**
 * What a config reload swaps; a request keeps the config and secrets it started with to its
 * end. The registry is the server's swappable one: what a request reports about a backend
 * reaches the registry in force.
 */
export interface ChatRouteState {
  config: Config;
  registry: ModelRegistry;
  /** Every configured key, scrubbed from server messages. */
  secrets: readonly string[];
}

export interface ChatRouteDeps {
  current(): ChatRouteState;
  pool: UpstreamPool;
  getAdapter(type: BackendType): Adapter;
  makeId(kind: 'completion' | 'call'): string;
  /** ms since the epoch. */
  now(): number;
  streams: ActiveStreams;
  /** Per-backend slots and queues (maxConcurrent, maxQueue, queueTimeoutMs), kept across reloads. */
  queues: BackendQueues;
  balancer: Balancer;
  metrics: SvirMetrics;
  /** Monotonic ms, for durations in metrics. */
  clock(): number;
}

/** Headers every answer of this route carries once the backend is known. */
export function svirHeaders(backend: string, changes: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = { 'x-svir-backend': backend };
  // A comma-separated list, omitted when svir changed nothing.
  if (changes.length > 0) headers['x-svir-changes'] = changes.map((c) => headerSafe(c.replace(/[\r\n,]+/g, ' ').trim())).join(', ');
  return headers;
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

/** Sets the svir headers of the backend now serving, dropping what an earlier attempt set. */
function setSvirHeaders(reply: FastifyReply, backend: string, changes: readonly string[]): void {
  reply.removeHeader('x-svir-changes');
  reply.headers(svirHeaders(backend, changes));
}

/** What one request carries from backend to backend. */
interface RequestScope {
  request: FastifyRequest;
  reply: FastifyReply;
  chat: ChatRequest;
  state: ChatRouteState;
  summary: RequestSummary;
  recorder: RequestRecorder;
  /** The client's disconnect and shutdown. */
  abort: AbortController;
}

interface Attempt {
  chat: ChatRequest;
  ctx: StreamContext;
  adapter: Adapter;
  opened: OpenedChatStream;
  deadlines: StreamDeadlines;
  recorder: RequestRecorder;
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

async function handle(deps: ChatRouteDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const state = deps.current();
  const summary: RequestSummary = summaryOf(request) ?? startSummary(request, deps.now());
  const recorder = createRequestRecorder(deps.metrics, deps.clock);
  reply.raw.once('close', () => {
    recorder.finish({ status: reply.raw.statusCode, finishReason: finishOf(summary, !reply.raw.writableFinished) });
  });

  const parsed = chatRequestSchema.safeParse(request.body);
  if (!parsed.success) throw invalidRequestError(parsed.error);
  const chat = parsed.data;
  summary.model = chat.model;
  summary.stream = chat.stream === true;

  const found = await state.registry.resolve(chat.model);
  if (found.length === 0) throw new SvirError('model_not_found', { param: 'model' });
  // A known name only: the label set stays bounded whatever clients send.
  recorder.setModel(chat.model);
  const states = new Map(state.registry.status().map((status) => [status.name, status.state]));
  const candidates = deps.balancer.order(chat.model, found, (candidate) => {
    const name = candidate.backend.config.name;
    const stats = deps.queues.get(name)?.stats();
    return { down: states.get(name) === 'down', load: stats === undefined ? 0 : stats.active + stats.queued };
  });

  // The client's disconnect (or shutdown) aborts the upstream request at once: a local server
  // stops generating when its connection closes.
  const abort = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) abort.abort(new ClientGoneError());
  };
  reply.raw.once('close', onClose);
  const unregister = deps.streams.add((reason) => abort.abort(reason));
  const scope: RequestScope = { request, reply, chat, state, summary, recorder, abort };
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
  } catch (err) {
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
      if (!reply.raw.writableEnded) reply.raw.end(encodeErrorEvent(toErrorResponse(err).body));
      return;
    }
    throw err;
  } finally {
    unregister();
    reply.raw.removeListener('close', onClose);
  }
}

/** One try on one backend: its queue slot, its deadlines, its upstream stream. */
async function attempt(deps: ChatRouteDeps, scope: RequestScope, candidate: RouteCandidate): Promise<void> {
  const { reply, chat, state, summary, recorder, abort } = scope;
  const { backend, upstreamModel } = candidate;
  const name = backend.config.name;
  summary.backend = name;
  recorder.setBackend(name);
  setSvirHeaders(reply, name, []);

  const adapter = deps.getAdapter(backend.config.type);
  const prepared = adapter.toUpstream(chat, backend, upstreamModel);
  if (!prepared.ok) throw prepared.error;
  const call = prepared.call;
  summary.changes = call.changes;
  setSvirHeaders(reply, name, call.changes);

  const queue = deps.queues.get(name);
  recorder.stopwatch.enter('queue');
  let ticket: QueueTicket | undefined;
  try {
    ticket = queue === undefined ? undefined : await queue.acquire(abort.signal);
  } finally {
    recorder.stopwatch.enter('svir');
  }
  if (ticket !== undefined) recorder.queued(ticket.waitedMs);

  const deadlines = createStreamDeadlines({
    backend: name,
    timeouts: backend.config.timeouts,
    // Comments only fit a stream: a `stream: false` client waits for one JSON body.
    keepaliveMs: chat.stream === true ? state.config.server.keepaliveMs : 0,
    onKeepalive: () => sendKeepalive(reply),
    parent: abort.signal,
  });
  try {
    recorder.upstreamSent();
    recorder.stopwatch.enter('upstream');
    let opened: OpenedChatStream;
    try {
      opened = await openChatStream({
        dispatcher: deps.pool.dispatcherFor(backend.config),
        adapter,
        backend,
        call,
        signal: deadlines.signal,
        secrets: state.secrets,
      });
    } finally {
      recorder.stopwatch.enter('svir');
    }
    state.registry.report(name, true);
    recorder.streamOpened();
    summary.changes = opened.changes;
    summary.retried = opened.retried;
    setSvirHeaders(reply, name, opened.changes);
    const ctx = buildStreamContext(chat, call, backend, state.config, state.secrets);
    await respond(deps, reply, summary, { chat, ctx, adapter, opened, deadlines, recorder });
  } catch (err) {
    if (isBackendDownError(err)) state.registry.report(name, false, err.message);
    if (err instanceof SvirError && err.source === 'upstream') recorder.upstreamError(err);
    throw err;
  } finally {
    // A deadline that ended the stream after its headers surfaces as an error event, not here.
    if (deadlines.expired !== undefined) recorder.upstreamError(deadlines.expired);
    deadlines.finish();
    recorder.streamClosed();
    ticket?.release();
  }
}

async function respond(
  deps: ChatRouteDeps,
  reply: FastifyReply,
  summary: RequestSummary,
  attempt: Attempt,
): Promise<void> {
  const { deadlines, recorder } = attempt;
  const signal = deadlines.signal;
  const read = readCleanSteps({
    body: attempt.opened.body,
    adapter: attempt.adapter,
    ctx: attempt.ctx,
    decoder: createSseDecoder(),
    normalizer: createNormalizer(attempt.ctx, { makeId: deps.makeId, now: deps.now }),
    signal,
    observer: {
      beforeRead: () => recorder.stopwatch.enter('upstream'),
      afterRead(events) {
        recorder.stopwatch.enter('svir');
        if (events > 0) deadlines.event();
      },
    },
  });
  const steps: AsyncGenerator<NormalizerStep, void, undefined> = watchSteps(read, {
    onStep(step) {
      for (const chunk of step.chunks) recorder.chunk(chunk);
      if (step.error !== undefined && step.error.source === 'upstream') recorder.upstreamError(step.error);
    },
    // The sender writes to the client now: its time is not the backend's idle time.
    handedOver: () => deadlines.pause(),
    resumed: () => deadlines.resume(),
  });
  const wantsUsage = attempt.chat.stream_options?.include_usage === true;
  if (attempt.chat.stream === true) {
    await sendStream({
      reply,
      steps,
      summary,
      now: deps.now,
      includeUsage: wantsUsage,
      signal,
      onClientWait: (waiting) => recorder.stopwatch.enter(waiting ? 'client' : 'svir'),
    });
  } else {
    await sendCompletion({ reply, steps, summary, now: deps.now, ctx: attempt.ctx });
  }
}

export function registerChatCompletionsRoute(app: FastifyInstance, deps: ChatRouteDeps): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    try {
      await handle(deps, request, reply);
    } catch (err) {
      const summary = summaryOf(request);
      if (summary !== undefined) recordError(summary, err);
      throw err;
    }
    return reply;
  });
}
