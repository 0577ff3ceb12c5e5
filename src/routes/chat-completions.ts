/**
 * `POST /v1/chat/completions`: validate → route the model → the backend's adapter rewrites the
 * request → one upstream stream → clean chunks, streamed to the client or folded into one
 * `chat.completion`. Response headers wait for the first clean chunk, so every failure before
 * generation is a real HTTP status; a failure after them ends the stream with one error event.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Adapter, StreamContext } from '../adapters/adapter.js';
import type { ActiveStreams } from '../active-streams.js';
import { chatRequestSchema, type ChatRequest } from '../chat-request.js';
import type { BackendType, Config } from '../config/schema.js';
import { SvirError } from '../errors.js';
import { createNormalizer, type NormalizerStep } from '../normalize/normalizer.js';
import { createSseDecoder } from '../normalize/sse-decoder.js';
import { recordError, startSummary, summaryOf, type RequestSummary } from '../request-summary.js';
import type { ModelRegistry } from '../router/create-model-registry.js';
import type { UpstreamPool } from '../upstream/create-upstream-pool.js';
import { openChatStream, type OpenedChatStream } from '../upstream/open-chat-stream.js';
import { readCleanSteps } from '../upstream/read-clean-steps.js';
import { buildStreamContext } from './build-stream-context.js';
import { invalidRequestError } from './invalid-request-error.js';
import { sendCompletion } from './send-completion.js';
import { sendStream } from './send-stream.js';
import { ClientGoneError } from './client-gone-error.js';

export interface ChatRouteDeps {
  config: Config;
  registry: ModelRegistry;
  pool: UpstreamPool;
  getAdapter(type: BackendType): Adapter;
  makeId(kind: 'completion' | 'call'): string;
  /** ms since the epoch. */
  now(): number;
  streams: ActiveStreams;
  /** Every configured key, scrubbed from server messages. */
  secrets: readonly string[];
}

/** Headers every answer of this route carries once the backend is known. */
export function svirHeaders(backend: string, changes: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = { 'x-svir-backend': backend };
  // Phrases are short ASCII; a comma-separated list, omitted when svir changed nothing.
  if (changes.length > 0) headers['x-svir-changes'] = changes.map((c) => c.replace(/[\r\n,]+/g, ' ').trim()).join(', ');
  return headers;
}

interface Attempt {
  chat: ChatRequest;
  ctx: StreamContext;
  adapter: Adapter;
  opened: OpenedChatStream;
  abort: AbortController;
}

async function handle(deps: ChatRouteDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const summary: RequestSummary = summaryOf(request) ?? startSummary(request, deps.now());
  const parsed = chatRequestSchema.safeParse(request.body);
  if (!parsed.success) throw invalidRequestError(parsed.error);
  const chat = parsed.data;
  summary.model = chat.model;
  summary.stream = chat.stream === true;

  const [candidate] = await deps.registry.resolve(chat.model);
  if (candidate === undefined) throw new SvirError('model_not_found', { param: 'model' });
  const { backend, upstreamModel } = candidate;
  const name = backend.config.name;
  summary.backend = name;
  reply.headers(svirHeaders(name, []));

  const adapter = deps.getAdapter(backend.config.type);
  const prepared = adapter.toUpstream(chat, backend, upstreamModel);
  if (!prepared.ok) throw prepared.error;
  const call = prepared.call;
  summary.changes = call.changes;
  reply.headers(svirHeaders(name, call.changes));

  // The client's disconnect (or shutdown) aborts the upstream request at once: a local server
  // stops generating when its connection closes.
  const abort = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) abort.abort(new ClientGoneError());
  };
  reply.raw.once('close', onClose);
  const unregister = deps.streams.add((reason) => abort.abort(reason));
  try {
    const opened = await openChatStream({
      dispatcher: deps.pool.dispatcherFor(backend.config),
      adapter,
      backend,
      call,
      signal: abort.signal,
      secrets: deps.secrets,
    });
    summary.changes = opened.changes;
    summary.retried = opened.retried;
    reply.headers(svirHeaders(name, opened.changes));
    const ctx = buildStreamContext(chat, call, backend, deps.config);
    await respond(deps, reply, summary, { chat, ctx, adapter, opened, abort });
  } catch (err) {
    if (abort.signal.reason instanceof ClientGoneError) {
      // Nobody to answer: keep Fastify from writing to a closed socket.
      summary.error = { code: 'client_closed', message: 'the client closed the connection', source: 'proxy' };
      if (!reply.sent) reply.hijack();
      return;
    }
    throw err;
  } finally {
    unregister();
    reply.raw.removeListener('close', onClose);
  }
}

async function respond(
  deps: ChatRouteDeps,
  reply: FastifyReply,
  summary: RequestSummary,
  attempt: Attempt,
): Promise<void> {
  const steps: AsyncGenerator<NormalizerStep, void, undefined> = readCleanSteps({
    body: attempt.opened.body,
    adapter: attempt.adapter,
    ctx: attempt.ctx,
    decoder: createSseDecoder(),
    normalizer: createNormalizer(attempt.ctx, { makeId: deps.makeId, now: deps.now }),
    signal: attempt.abort.signal,
  });
  const wantsUsage = attempt.chat.stream_options?.include_usage === true;
  if (attempt.chat.stream === true) {
    await sendStream({ reply, steps, summary, now: deps.now, includeUsage: wantsUsage, signal: attempt.abort.signal });
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
