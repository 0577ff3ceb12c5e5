/**
 * `POST /v1/completions` (legacy Completions, editor autocomplete): routed by `model` like chat
 * (route-to-backend.ts: keys, queue, deadlines, failover before the first byte, metrics, log
 * line). The body goes on as sent but for the model id, a stream with usage (completion-call.ts)
 * and a `suffix` only to a server that takes it; the upstream `text_completion` stream is read by
 * the adapter's completions reader into the one normalizer, and its clean chunks go out as
 * `text_completion` chunks ending with `[DONE]`, or folded into one `text_completion` object.
 * Headers wait for the first text, so a failure before it is a real HTTP status.
 */
import type { FastifyInstance } from 'fastify';
import type { StreamContext } from '../normalize/stream-context.js';
import { createStreamMemo } from '../normalize/stream-memo.js';
import { completionCall } from '../adapters/request/completion-call.js';
import { knownContextLength } from '../adapters/models/known-context-length.js';
import { completionRequestSchema, type CompletionRequest } from '../requests/completion-request.js';
import { foldTextCompletion } from '../normalize/fold-text-completion.js';
import { encodeTextCompletionChunk } from '../normalize/sse-encoder.js';
import { openChatStream } from '../upstream/open-chat-stream.js';
import { invalidRequestError } from './invalid-request-error.js';
import { readAttemptSteps } from './read-attempt-steps.js';
import type { BackendRoute, RouteDeps } from './backend-route.js';
import { routeToBackend } from './route-to-backend.js';
import { sendCompletion } from './send-completion.js';
import { sendStream } from './send-stream.js';

export interface CompletionsRouteDeps extends RouteDeps {
  makeId(kind: 'completion' | 'call'): string;
}

function completionsRoute(deps: CompletionsRouteDeps, request: CompletionRequest): BackendRoute {
  const stream = request.stream === true;
  // Legacy ids read `cmpl-…`; the normalizer makes chat's when the server sent none.
  const makeId = (kind: 'completion' | 'call'): string => {
    const id = deps.makeId(kind);
    return kind === 'completion' ? id.replace(/^chatcmpl-/, 'cmpl-') : id;
  };
  return {
    model: request.model,
    stream,
    prepare({ backend, upstreamModel, adapter, state }) {
      const prepared = completionCall(adapter, request, backend, upstreamModel);
      if (!prepared.ok) throw prepared.error;
      const call = prepared.call;
      return {
        changes: call.changes,
        async open(signal, dispatcher) {
          const contextLength = knownContextLength(backend, upstreamModel);
          const opened = await openChatStream({ dispatcher, adapter, backend, call, signal, secrets: state.secrets, contextLength });
          const ctx: StreamContext = {
            model: request.model,
            backend: backend.config.name,
            toolNames: [],
            includeUsage: true,
            logprobs: typeof request.logprobs === 'number',
            structuredOutput: false,
            // Completion text is the model's text as it came, `<think>` or not.
            reasoningTags: 'off',
            reasoningOff: false,
            reasoningField: state.config.reasoning.field,
            secrets: state.secrets,
            memo: createStreamMemo(),
            ...(contextLength === undefined ? {} : { contextLength }),
          };
          return {
            changes: opened.changes,
            retried: opened.retried,
            async respond(io) {
              const reader = { readEvent: adapter.readCompletionEvent };
              const steps = readAttemptSteps({ io, body: opened.body, reader, ctx, makeId, now: deps.now });
              if (stream) {
                await sendStream({
                  reply: io.reply,
                  pump: steps.pump,
                  summary: io.summary,
                  now: deps.now,
                  includeUsage: request.stream_options?.include_usage === true,
                  signal: io.deadlines.signal,
                  onClientWait: steps.onClientWait,
                  alone: () => deps.streams.size <= 1,
                  encode: encodeTextCompletionChunk,
                });
              } else {
                await sendCompletion({
                  reply: io.reply,
                  pump: steps.pump,
                  summary: io.summary,
                  now: deps.now,
                  ctx,
                  fold: (chunks) => foldTextCompletion(chunks, { model: request.model }),
                });
              }
            },
          };
        },
      };
    },
  };
}

export function registerCompletionsRoute(app: FastifyInstance, deps: CompletionsRouteDeps): void {
  app.post('/v1/completions', async (request, reply) => {
    await routeToBackend(deps, request, reply, (body) => {
      const parsed = completionRequestSchema.safeParse(body);
      if (!parsed.success) throw invalidRequestError(parsed.error);
      return completionsRoute(deps, parsed.data);
    });
    return reply;
  });
}
