/**
 * `POST /v1/responses`, `GET /v1/responses/{id}` (and its `/input_items`), `DELETE /v1/responses/{id}`.
 *
 * A Responses request is translated (src/responses/, pure) into a clean chat request and served
 * by the chat pipeline unchanged: routing, failover, the queue, adapter rewrites and retries,
 * deadlines and the normalizer (chatRoute). Only the sender differs: the clean steps become
 * Responses events or one response object (send-responses.ts). No backend is asked for
 * /v1/responses. What the translation dropped or changed is added to `x-svir-changes`.
 *
 * The store (src/store/) keeps each response unless `store: false`: `previous_response_id`
 * puts the earlier conversation before the new input, `item_reference` items are read from it,
 * and GET (the response, its input items) and DELETE answer from it. Unknown ids are 404 in the one error shape.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvirError } from '../errors.js';
import type { ResponsesIdKind } from '../ids/create-responses-id-maker.js';
import { createResponsesTranslator } from '../responses/create-responses-translator.js';
import { echoRequest } from '../responses/echo-request.js';
import type { InputItem } from '../responses/input-item.js';
import { outputAsInput } from '../responses/output-as-input.js';
import { readInputItems } from '../responses/read-input-items.js';
import { reasoningFormOf } from '../responses/reasoning-form.js';
import { resolveInputItems } from '../responses/resolve-input-items.js';
import { responsesParams } from '../responses/responses-params.js';
import { referencedIds } from '../responses/referenced-ids.js';
import { responsesRequestSchema, type ResponsesRequest } from '../responses/responses-request.js';
import { toChatRequest, type TranslatedRequest } from '../responses/to-chat-request.js';
import { toResponseItems } from '../responses/to-response-items.js';
import { withItemIds } from '../responses/with-item-ids.js';
import type { ResponseStore } from '../store/response-store.js';
import { chatRoute, type ChatRouteDeps } from './chat-completions.js';
import { invalidRequestError } from './invalid-request-error.js';
import type { BackendRoute } from './backend-route.js';
import { routeToBackend } from './route-to-backend.js';
import { failureOf, keptText, responsesSender, type KeepResponse, type MakeTranslator } from './send-responses.js';

export interface ResponsesRouteDeps extends ChatRouteDeps {
  makeResponsesId(kind: ResponsesIdKind): string;
  store: ResponseStore;
}

const idParams = z.object({ id: z.string().min(1) });

/** `GET .../input_items` paging, as OpenAI's list endpoints take it (newest first by default). */
const listQuery = z.looseObject({
  order: z.enum(['asc', 'desc']).default('desc'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).optional(),
});

function notFound(id: string, param: string | null): SvirError {
  return new SvirError('response_not_found', {
    param,
    message: `No response "${id}" is stored here (it was sent with store: false, or was evicted or deleted, or svir restarted since).`,
  });
}

/** The request's input items: a string is one user message. */
function inputOf(request: ResponsesRequest): unknown[] {
  const input = request.input;
  if (input === null || input === undefined) return [];
  return typeof input === 'string' ? [{ role: 'user', content: input }] : input;
}

/**
 * A fresh translator per attempt. Made apart from responsesRoute so that what an open stream
 * keeps is what the response repeats (echo, model, tool origins), not the whole request.
 */
function translatorMaker(deps: ResponsesRouteDeps, id: string, request: ResponsesRequest, origins: TranslatedRequest['origins']): MakeTranslator {
  const model = request.model;
  const echo = echoRequest(request);
  const reasoningForm = reasoningFormOf(request);
  return (output) =>
    createResponsesTranslator(
      { id, model, echo, origins, reasoningField: deps.current().config.reasoning.field, reasoningForm },
      { makeItemId: (kind) => deps.makeResponsesId(kind), now: deps.now },
      output,
    );
}

/** Why a response was not kept, for `x-svir-changes`. */
const NOT_KEPT = {
  refused: 'store: nothing was kept (the response is larger than the store keeps for one response)',
  unavailable: 'store: nothing was kept (the Responses store is unavailable)',
};

/**
 * Puts the final response in the store with the conversation before it and the request's own
 * input items (their ids given here). A store that cannot be reached costs the client its record,
 * never its answer.
 */
function keeper(deps: ResponsesRouteDeps, prior: InputItem[], input: readonly InputItem[]): KeepResponse {
  return async (response, json) => {
    const record = { response, prior, input: withItemIds(input, (kind) => deps.makeResponsesId(kind)), output: outputAsInput(response.output) };
    try {
      return (await deps.store.put(record, json)) ? undefined : NOT_KEPT.refused;
    } catch {
      return NOT_KEPT.unavailable;
    }
  };
}

async function responsesRoute(deps: ResponsesRouteDeps, body: unknown): Promise<BackendRoute> {
  const parsed = responsesRequestSchema.safeParse(body);
  if (!parsed.success) throw invalidRequestError(parsed.error);
  const request = parsed.data;
  const { store } = deps;

  const read = readInputItems(inputOf(request));
  const previous = request.previous_response_id;
  const references = referencedIds(read);
  // Both lookups at once: one round trip's wait for a shared store. Nothing to look up (the
  // common first turn): no promise and no wait at all.
  const [found, referenced] =
    typeof previous !== 'string' && references.length === 0
      ? [[], undefined]
      : await Promise.all([
          typeof previous === 'string' ? store.history(previous) : Promise.resolve([]),
          references.length === 0 ? Promise.resolve(undefined) : store.items(references),
        ]);
  if (found === undefined) throw notFound(String(previous), 'previous_response_id');
  const history = found;
  const input = resolveInputItems(read, (id) => referenced?.get(id));
  const translated = toChatRequest(request, [...history, ...input]);
  const notes = translated.notes;

  const id = deps.makeResponsesId('response');
  const makeTranslator = translatorMaker(deps, id, request, translated.origins);
  // `store: false`: nothing is kept, and no final response object is made for it.
  const keep = request.store === false ? undefined : keeper(deps, history, input);

  const chat = chatRoute(deps, translated.chat, responsesSender(makeTranslator, keep));
  return {
    model: chat.model,
    stream: chat.stream,
    params: responsesParams,
    prepare(target) {
      const prepared = chat.prepare(target);
      // Nothing of the Responses request was dropped or changed (the common case): the chat attempt's changes as they are.
      if (notes.length === 0) return prepared;
      return {
        changes: [...notes, ...prepared.changes],
        async open(signal, dispatcher) {
          const opened = await prepared.open(signal, dispatcher);
          return { ...opened, changes: [...notes, ...opened.changes] };
        },
      };
    },
    // Keepalives committed the stream and then the attempt failed: the response still opens and
    // fails in Responses events, never a chat error event.
    lateError(err) {
      const translator = makeTranslator('text');
      const text = translator.fail(failureOf(err));
      return keep === undefined ? text : keptText(translator, keep, text);
    },
  };
}

export function registerResponsesRoutes(app: FastifyInstance, deps: ResponsesRouteDeps): void {
  app.post('/v1/responses', async (request, reply) => {
    await routeToBackend(deps, request, reply, (body) => responsesRoute(deps, body));
    return reply;
  });

  app.get('/v1/responses/:id', async (request, reply) => {
    const { id } = idParams.parse(request.params);
    const query = z.looseObject({ stream: z.string().optional() }).safeParse(request.query);
    if (query.success && query.data.stream === 'true') {
      throw new SvirError('invalid_request', { param: 'stream', message: 'svir does not replay a stored response as a stream; GET it without stream=true.' });
    }
    const response = await deps.store.get(id);
    if (response === undefined) throw notFound(id, null);
    return reply.code(200).type('application/json; charset=utf-8').send(response);
  });

  app.get('/v1/responses/:id/input_items', async (request, reply) => {
    const { id } = idParams.parse(request.params);
    const query = listQuery.safeParse(request.query);
    if (!query.success) throw invalidRequestError(query.error);
    const input = await deps.store.input(id);
    if (input === undefined) throw notFound(id, null);
    const items = toResponseItems(input);
    if (query.data.order === 'desc') items.reverse();
    const { after, limit } = query.data;
    let start = 0;
    if (after !== undefined) {
      start = items.findIndex((item) => item['id'] === after) + 1;
      if (start === 0) throw new SvirError('item_not_found', { param: 'after', message: `after names the item "${after}", which is not an input item of response "${id}".` });
    }
    const data = items.slice(start, start + limit);
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .send({ object: 'list', data, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null, has_more: start + limit < items.length });
  });

  app.delete('/v1/responses/:id', async (request, reply) => {
    const { id } = idParams.parse(request.params);
    if (!(await deps.store.delete(id))) throw notFound(id, null);
    return reply.code(200).type('application/json; charset=utf-8').send({ id, object: 'response', deleted: true });
  });
}
