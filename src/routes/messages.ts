/**
 * `POST /v1/messages` (Anthropic's Messages API, for Claude Code and the Anthropic SDKs;
 * docs/messages.md). `?beta=true`, `anthropic-version` and `anthropic-beta` are accepted, never
 * required.
 *
 * A Messages request is translated (src/messages/, pure) into a clean chat request and served
 * by the chat pipeline unchanged: routing, aliases, failover, the queue, adapter rewrites and
 * retries, deadlines and the normalizer (chatRoute). No backend is asked for /v1/messages. Per
 * backend, `max_tokens` is first lowered to what its known context can hold. Only the sender
 * differs (send-messages.ts). What the translation dropped or changed is added to
 * `x-svir-changes`; errors leave in Anthropic's shape (send-messages-error.ts, by the server's
 * error handler).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { knownContextLength } from '../adapters/models/known-context-length.js';
import { estimatePromptTokens } from '../adapters/request/note-context-risk.js';
import { fitMaxTokens } from '../messages/fit-max-tokens.js';
import { encodeMessagesError, toMessagesFailure } from '../messages/messages-failure.js';
import { messagesRequestSchema } from '../messages/messages-request.js';
import { toChatRequest } from '../messages/to-chat-request.js';
import { chatRoute, type ChatRouteDeps } from './chat-completions.js';
import { invalidRequestError } from './invalid-request-error.js';
import { registerCountTokensRoute, type CountTokensDeps } from './messages-count-tokens.js';
import type { BackendRoute } from './backend-route.js';
import { routeToBackend } from './route-to-backend.js';
import { messagesSender } from './send-messages.js';

export interface MessagesRouteDeps extends ChatRouteDeps, CountTokensDeps {
  makeMessageId(): string;
}

/** Anthropic's keepalive: an event the SDKs skip (a comment would do too; this is what Anthropic sends). */
export const PING_EVENT = 'event: ping\ndata: {"type":"ping"}\n\n';

/** The `anthropic-beta` header's values (comma-separated, possibly repeated). */
export function betasOf(request: FastifyRequest): string[] {
  const header = request.headers['anthropic-beta'];
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.flatMap((value) => value.split(',').map((beta) => beta.trim())).filter((beta) => beta !== '');
}

function messagesRoute(deps: MessagesRouteDeps, request: FastifyRequest, body: unknown): BackendRoute {
  const parsed = messagesRequestSchema.safeParse(body);
  if (!parsed.success) throw invalidRequestError(parsed.error);
  const translated = toChatRequest(parsed.data, betasOf(request));
  const { chat, notes } = translated;
  const output = {
    id: deps.makeMessageId(),
    model: chat.model,
    inputEstimate: estimatePromptTokens(chat.messages, chat.tools),
    requestId: request.id,
    reasoningField: deps.current().config.reasoning.field,
  };
  const send = messagesSender(output);
  return {
    model: chat.model,
    stream: chat.stream === true,
    keepalive: PING_EVENT,
    prepare(target) {
      const fitted = fitMaxTokens(chat, knownContextLength(target.backend, target.upstreamModel));
      const prepared = chatRoute(deps, fitted.chat, send).prepare(target);
      const ours = fitted.note === undefined ? notes : [...notes, fitted.note];
      if (ours.length === 0) return prepared;
      return {
        changes: [...ours, ...prepared.changes],
        async open(signal, dispatcher) {
          const opened = await prepared.open(signal, dispatcher);
          return { ...opened, changes: [...ours, ...opened.changes] };
        },
      };
    },
    // Pings committed the stream and then the attempt failed: Anthropic's error event.
    lateError: (err) => encodeMessagesError(toMessagesFailure(err), request.id),
  };
}

export function registerMessagesRoutes(app: FastifyInstance, deps: MessagesRouteDeps): void {
  app.post('/v1/messages', async (request, reply) => {
    await routeToBackend(deps, request, reply, (body) => messagesRoute(deps, request, body));
    return reply;
  });
  registerCountTokensRoute(app, deps);
}
