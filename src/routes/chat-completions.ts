/**
 * `POST /v1/chat/completions`: validate → route the model → the backend's adapter rewrites the
 * request → one upstream stream → clean chunks, streamed to the client or folded into one
 * `chat.completion`. Response headers wait for the first clean chunk, so every failure before
 * generation is a real HTTP status; a failure after them ends the stream with one error event.
 *
 * Routing, failover, the queue, deadlines and metrics are route-to-backend.ts's; this file is
 * what one attempt does with a chat request. `chatRoute` takes the sender of the clean steps,
 * so that another route served over the chat pipeline (Responses) sends them its own way.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { knownContextLength } from '../adapters/models/known-context-length.js';
import type { StreamContext } from '../normalize/stream-context.js';
import { chatRequestSchema, type ChatRequest } from '../requests/chat-request.js';
import type { RequestSummary } from '../logging/request-summary.js';
import { openChatStream } from '../upstream/open-chat-stream.js';
import type { CleanStepPump, StepSink } from '../upstream/pump-clean-steps.js';
import { buildStreamContext } from './build-stream-context.js';
import { invalidRequestError } from './invalid-request-error.js';
import { readAttemptSteps, type AttemptSteps } from './read-attempt-steps.js';
import type { AttemptIO, BackendRoute, RouteDeps } from './backend-route.js';
import { routeToBackend } from './route-to-backend.js';
import { sendCompletion } from './send-completion.js';
import { sendStream } from './send-stream.js';

export interface ChatRouteDeps extends RouteDeps {
  makeId(kind: 'completion' | 'call'): string;
}

/** What a sender gets: the clean steps of one attempt, and where they go. */
export interface ChatSendArgs {
  reply: FastifyReply;
  /** The chat request as the client's route made it (before the adapter's rewrites). */
  chat: ChatRequest;
  /**
   * Starts reading the upstream stream, each read's clean step handed to `sink` in the same turn
   * (a streaming sender writes it there, a folding one holds it: no promise per read). Once.
   */
  pump(sink: StepSink): CleanStepPump;
  summary: RequestSummary;
  ctx: StreamContext;
  now(): number;
  /** Aborts on a deadline, the client's leave or shutdown. */
  signal: AbortSignalLike;
  /** Told when svir starts (true) and stops (false) waiting for the client to take its data. */
  onClientWait(waiting: boolean): void;
  /** Whether no other request is in flight (send-stream.ts: the first event's own write). */
  alone(): boolean;
}

export type ChatSender = (args: ChatSendArgs) => Promise<void>;

/** The chat route's own sender: SSE chunks for `stream: true`, one `chat.completion` otherwise. */
export const sendChat: ChatSender = (args) =>
  args.chat.stream === true
    ? sendStream({
        reply: args.reply,
        pump: args.pump,
        summary: args.summary,
        now: args.now,
        includeUsage: args.chat.stream_options?.include_usage === true,
        signal: args.signal,
        onClientWait: args.onClientWait,
        alone: args.alone,
      })
    : sendCompletion({ reply: args.reply, pump: args.pump, summary: args.summary, now: args.now, ctx: args.ctx });

/** A chat request's attempts: the adapter's call, its upstream stream, the clean steps to `send`. */
export function chatRoute(deps: ChatRouteDeps, chat: ChatRequest, send: ChatSender): BackendRoute {
  return {
    model: chat.model,
    stream: chat.stream === true,
    prepare({ backend, upstreamModel, adapter, state }) {
      const prepared = adapter.toUpstream(chat, backend, upstreamModel);
      if (!prepared.ok) throw prepared.error;
      const call = prepared.call;
      return {
        changes: call.changes,
        async open(signal, dispatcher) {
          const opening = openChatStream({
            dispatcher,
            adapter,
            backend,
            call,
            signal,
            secrets: state.secrets,
            contextLength: knownContextLength(backend, upstreamModel),
          });
          // The request is on its way: the stream's context is made while the server works, for
          // the body as the adapter made it; a retry that sent another body makes it again.
          const first = buildStreamContext(chat, call.body, backend, upstreamModel, adapter, state.config, state.secrets);
          const opened = await opening;
          const ctx =
            opened.sentBody === call.body
              ? first
              : buildStreamContext(chat, opened.sentBody, backend, upstreamModel, adapter, state.config, state.secrets);
          return {
            changes: opened.changes,
            retried: opened.retried,
            respond: (io) =>
              send(sendArgs(deps, chat, ctx, readAttemptSteps({ io, body: opened.body, reader: adapter, ctx, makeId: deps.makeId, now: deps.now }), io)),
          };
        },
      };
    },
  };
}

function sendArgs(deps: ChatRouteDeps, chat: ChatRequest, ctx: StreamContext, steps: AttemptSteps, io: AttemptIO): ChatSendArgs {
  return {
    reply: io.reply,
    chat,
    pump: (sink) => steps.pump(sink),
    summary: io.summary,
    ctx,
    now: deps.now,
    signal: io.deadlines.signal,
    onClientWait: (waiting) => steps.onClientWait(waiting),
    alone: () => deps.streams.size <= 1,
  };
}

export function registerChatCompletionsRoute(app: FastifyInstance, deps: ChatRouteDeps): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    await routeToBackend(deps, request, reply, (body) => {
      const parsed = chatRequestSchema.safeParse(body);
      if (!parsed.success) throw invalidRequestError(parsed.error);
      return chatRoute(deps, parsed.data, sendChat);
    });
    return reply;
  });
}
