/**
 * Micro-benchmark of the Responses route's pure work per request, next to the chat route's
 * (not part of `npm run bench`): the request read and translated into the chat request, the
 * translator over the bench's 64-chunk answer (role, 64 text deltas, finish, usage) as one
 * stream's text, and with `store: true` the store's end (the final response, its output as
 * input items, the put). Each request's body is parsed afresh, as the server gets it. CPU time
 * per request on one core, best of 5 rounds.
 *
 *   node --import tsx bench/responses-micro.ts [--only <name part>]
 *
 * In the server the same work costs several times more (shared, megamorphic call sites; GC):
 * compare stages with each other and builds with each other, not with the load figures.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chatRequestSchema } from '../src/requests/chat-request.js';
import type { CleanChunk } from '../src/normalize/clean-chunk.js';
import { createChunkEncoder, encodeDone } from '../src/normalize/sse-encoder.js';
import { createResponsesTranslator, type ResponsesTranslator } from '../src/responses/create-responses-translator.js';
import { echoRequest } from '../src/responses/echo-request.js';
import type { InputItem } from '../src/responses/input-item.js';
import { outputAsInput } from '../src/responses/output-as-input.js';
import { readInputItems } from '../src/responses/read-input-items.js';
import { reasoningFormOf } from '../src/responses/reasoning-form.js';
import { resolveInputItems } from '../src/responses/resolve-input-items.js';
import { responsesRequestSchema, type ResponsesRequest } from '../src/responses/responses-request.js';
import { toChatRequest } from '../src/responses/to-chat-request.js';
import { withItemIds } from '../src/responses/with-item-ids.js';
import { createResponseStore } from '../src/store/create-response-store.js';
import { chatRequestBody, responsesRequestBody } from './request-body.js';

const CHAT_BODY = chatRequestBody();
const RESPONSES_BODY = responsesRequestBody();
/** A real Codex CLI first turn (46 KB: nine tools, one a namespace, and web_search). */
const CODEX_BODY = readFileSync(fileURLToPath(new URL('../tests/fixtures/responses/codex-request.json', import.meta.url)), 'utf8');

const WORDS = 'The quick answer is that a proxy should never be noticed by its users'.split(' ');
const ENVELOPE = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'bench-model' } as const;
const CHUNKS: CleanChunk[] = [
  { ...ENVELOPE, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ...Array.from({ length: 64 }, (_, i): CleanChunk => ({ ...ENVELOPE, choices: [{ index: 0, delta: { content: ` ${WORDS[i % WORDS.length] ?? 'x'}` }, finish_reason: null }] })),
  { ...ENVELOPE, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  { ...ENVELOPE, choices: [], usage: { prompt_tokens: 80, completion_tokens: 64, total_tokens: 144 } },
];

let next = 0;
const makeId = (kind: string): string => `${kind}_${(next++).toString(16).padStart(24, '0')}`;

function readRequest(body = RESPONSES_BODY): ResponsesRequest {
  const parsed = responsesRequestSchema.safeParse(JSON.parse(body));
  if (!parsed.success) throw new Error('the bench request does not parse');
  return parsed.data;
}

function inputOf(request: ResponsesRequest): InputItem[] {
  const input = request.input;
  const raw = typeof input === 'string' ? [{ role: 'user', content: input }] : (input ?? []);
  return resolveInputItems(readInputItems(raw), () => undefined);
}

function translator(request: ResponsesRequest): ResponsesTranslator<string> {
  return createResponsesTranslator(
    { id: makeId('resp'), model: request.model, echo: echoRequest(request), origins: new Map(), reasoningField: 'reasoning_content', reasoningForm: reasoningFormOf(request) },
    { makeItemId: makeId, now: () => 1_760_000_000_000 },
    'text',
  );
}

const store = createResponseStore({ maxResponses: 1000, maxBytes: 64 * 1024 * 1024 });

const STAGES: Record<string, () => unknown> = {
  'chat: request read': () => chatRequestSchema.safeParse(JSON.parse(CHAT_BODY)),
  'chat: 67 chunks encoded': () => {
    const encode = createChunkEncoder();
    let text = '';
    for (const chunk of CHUNKS) text += encode(chunk);
    return text + encodeDone();
  },
  'responses: request read and translated': () => {
    const request = readRequest();
    return [toChatRequest(request, inputOf(request)), echoRequest(request)];
  },
  'responses: Codex turn read and translated': () => {
    const request = readRequest(CODEX_BODY);
    return [toChatRequest(request, inputOf(request)), echoRequest(request)];
  },
  'responses: 67 chunks as events': () => {
    const t = translator(readRequest());
    return t.pushAll(CHUNKS) + t.finish();
  },
  'responses: 67 chunks as events, stored': () => {
    const request = readRequest();
    const input = inputOf(request);
    const t = translator(request);
    t.pushAll(CHUNKS);
    t.finish();
    const response = t.response();
    return store.put({ response, prior: [], input: withItemIds(input, makeId), output: outputAsInput(response.output) }, t.responseJson());
  },
};

const { values } = parseArgs({ options: { only: { type: 'string' } } });
for (const [name, stage] of Object.entries(STAGES)) {
  if (values.only !== undefined && !name.includes(values.only)) continue;
  for (let i = 0; i < 3000; i++) stage();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const iterations = 3000;
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) stage();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / iterations);
  }
  console.log(`${name.padEnd(40)} ${best.toFixed(2).padStart(7)} µs`);
}
