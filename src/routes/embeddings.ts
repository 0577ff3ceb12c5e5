/**
 * `POST /v1/embeddings`: routed by `model` like chat (route-to-backend.ts: keys, queue,
 * deadlines, failover before the first byte, metrics, log line). The body goes on as sent but
 * for the model id (embedding-call.ts); the server's one JSON answer is read whole (bounded)
 * and fitted to what the client asked (fit-embeddings.ts): `model` the client's string, each
 * vector in the `encoding_format` it named.
 */
import type { FastifyInstance } from 'fastify';
import { embeddingCall } from '../adapters/request/embedding-call.js';
import { knownContextLength } from '../adapters/models/known-context-length.js';
import { embeddingRequestSchema, type EmbeddingRequest } from '../requests/embedding-request.js';
import { fitEmbeddings } from '../normalize/fit-embeddings.js';
import { openChatStream } from '../upstream/open-chat-stream.js';
import { readJsonBody } from '../upstream/read-json-body.js';
import { invalidRequestError } from './invalid-request-error.js';
import type { BackendRoute, RouteDeps } from './backend-route.js';
import { routeToBackend } from './route-to-backend.js';

/** Far above a real answer (a thousand 4096-float vectors is about 40 MiB of JSON). */
export const MAX_EMBEDDINGS_BYTES = 256 * 1024 * 1024;

function embeddingsRoute(deps: RouteDeps, request: EmbeddingRequest): BackendRoute {
  return {
    model: request.model,
    stream: false,
    prepare({ backend, upstreamModel, adapter, state }) {
      const prepared = embeddingCall(adapter, request, backend, upstreamModel);
      if (!prepared.ok) throw prepared.error;
      const call = prepared.call;
      const name = backend.config.name;
      return {
        changes: call.changes,
        async open(signal, dispatcher) {
          const opened = await openChatStream({
            dispatcher,
            adapter,
            backend,
            call,
            signal,
            secrets: state.secrets,
            expect: 'json',
            contextLength: knownContextLength(backend, upstreamModel),
          });
          return {
            changes: opened.changes,
            retried: opened.retried,
            async respond({ reply, summary, recorder, deadlines }) {
              // The server computed the vectors before its headers: the rest is the idle wait.
              deadlines.event();
              recorder.stopwatch.enter('upstream');
              let answer: unknown;
              try {
                answer = await readJsonBody(opened.body, { maxBytes: MAX_EMBEDDINGS_BYTES, backend: name, signal: deadlines.signal });
              } finally {
                recorder.stopwatch.enter('svir');
              }
              const fitted = fitEmbeddings(answer, { model: request.model, format: request.encoding_format ?? 'float', backend: name });
              if (fitted instanceof Error) throw fitted;
              summary.firstChunkAt = deps.now();
              // An answer is whole or an error; the requests metric counts a whole one as `stop`.
              summary.finishReason = 'stop';
              if (fitted.usage !== undefined) {
                summary.usage = { prompt_tokens: fitted.usage.prompt_tokens, completion_tokens: 0, total_tokens: fitted.usage.total_tokens };
              }
              await reply.code(200).type('application/json; charset=utf-8').send(fitted);
            },
          };
        },
      };
    },
  };
}

export function registerEmbeddingsRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.post('/v1/embeddings', async (request, reply) => {
    await routeToBackend(deps, request, reply, (body) => {
      const parsed = embeddingRequestSchema.safeParse(body);
      if (!parsed.success) throw invalidRequestError(parsed.error);
      return embeddingsRoute(deps, parsed.data);
    });
    return reply;
  });
}
