/**
 * A fake Ollama OpenAI layer (docs/ollama.md, read in Ollama's source at fb30760): lists its
 * local models under name:tag (`data: null` when there are none); reads no `tool_choice` (the
 * model sees every tool) and no `max_completion_tokens`; turns `reasoning_effort` into `think`
 * (thinking on by default for a thinking model, 400 "does not support thinking" for one that
 * is not, 400 "invalid reasoning value" for a value its release does not list); sends reasoning
 * as `reasoning` with `"content": ""` beside it; sends each tool call whole, every one at
 * `index: 0` (before v0.20.6, and gpt-oss still) or counted; takes images only as data URLs of
 * jpeg/jpg/png/webp; answers errors as `{"error":{"message","type","param":null,"code":null}}`;
 * shortens a prompt over `num_ctx` silently (or refuses it, for a model that cannot shift);
 * and loses an error inside the stream (one empty chunk, then the end, no `[DONE]`).
 * `wire: 'legacy'` is the chunk format before v0.32.6: role and `content: ""` on every delta,
 * the finish on the last chunk, `created` per chunk.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler, fakeEmbeddingHandler } from './fake-legacy.js';
import {
  JSON_ANSWER,
  LOCKER_ARGUMENTS,
  lastUserText,
  messageText,
  modelAnswer,
  pieces,
  sseData,
  toolNames,
  wantsUsage,
  writeEventStream,
  writeJson,
  type FakeChatBody,
} from './fake-model.js';

export interface OllamaModel {
  name: string;
  thinking?: boolean;
  tools?: boolean;
  /** Whether it can shift its context (every family but deepseek2): over num_ctx it shortens. */
  shift?: boolean;
  /** An embedding model: listed, but refuses chat. */
  embedding?: boolean;
}

export interface OllamaOptions {
  models?: readonly OllamaModel[];
  /** The context every model is loaded with, in prompt characters (one per token here). */
  numCtx?: number;
  /** `zero`: every call at index 0 (before v0.20.6; gpt-oss); `counted`: 0, 1, ... */
  callIndex?: 'zero' | 'counted';
  /** `legacy`: the chunk format before v0.32.6. */
  wire?: 'current' | 'legacy';
  /** Release before v0.32.11: `reasoning_effort` only high, medium, low or none. */
  legacyEfforts?: boolean;
}

export const OLLAMA_MODELS: readonly OllamaModel[] = [
  { name: 'qwen3:8b', thinking: true, tools: true },
  { name: 'llama3.2:latest', tools: true },
  { name: 'deepseek-v2:16b', shift: false },
  { name: 'nomic-embed-text:latest', embedding: true },
];

/** Two lockers asked at once: the model calls the tool twice. */
export const SECOND_LOCKER_ARGUMENTS = '{"number":7}';

const CALL_IDS = ['call_k3v9x2qa', 'call_m7p1d4zr'];

export const OLLAMA_CONTEXT_MESSAGE =
  'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length';

function errorBody(status: number, message: string): Record<string, unknown> {
  const type = status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'api_error';
  return { error: { message, type, param: null, code: null } };
}

function fail(res: ServerResponse, status: number, message: string): void {
  writeJson(res, status, errorBody(status, message));
}

const EFFORTS = new Map<string, string | false>([
  ['none', false],
  ['minimal', 'low'],
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['max', 'max'],
  ['xhigh', 'max'],
  ['ultra', 'max'],
]);
const LEGACY_EFFORTS = new Set(['high', 'medium', 'low', 'none']);

const imagePart = z.looseObject({ type: z.literal('image_url'), image_url: z.union([z.string(), z.looseObject({ url: z.string() })]) });
const IMAGE_PREFIXES = ['data:;base64,', ...['jpeg', 'jpg', 'png', 'webp'].map((type) => `data:image/${type};base64,`)];

/** Ollama's decodeImageURL: the error message for an image it cannot read, or undefined. */
function imageError(body: FakeChatBody): string | undefined {
  for (const message of body.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      const image = imagePart.safeParse(part);
      if (!image.success) continue;
      const url = typeof image.data.image_url === 'string' ? image.data.image_url : image.data.image_url.url;
      if (url.startsWith('http://') || url.startsWith('https://')) {
        return 'image URLs are not currently supported, please use base64 encoded data instead';
      }
      if (!IMAGE_PREFIXES.some((prefix) => url.startsWith(prefix))) return 'invalid image input';
    }
  }
  return undefined;
}

/** Drops messages from the front, keeping system messages and the last one, until it fits. */
function fitToContext(messages: FakeChatBody['messages'], numCtx: number): { kept: FakeChatBody['messages']; tokens: number } {
  const size = (list: FakeChatBody['messages']): number => list.map((message) => messageText(message.content)).join('\n').length;
  for (let start = 0; start < messages.length; start += 1) {
    const kept = [...messages.slice(0, start).filter((message) => message.role === 'system'), ...messages.slice(start)];
    if (size(kept) <= numCtx || start === messages.length - 1) return { kept, tokens: Math.min(size(kept), numCtx) };
  }
  return { kept: messages, tokens: 0 };
}

function answer(body: FakeChatBody, res: ServerResponse, options: Required<OllamaOptions>): void {
  if (body.messages.length === 0) {
    fail(res, 400, "[] is too short - 'messages'");
    return;
  }
  const raw = z.looseObject({ reasoning_effort: z.unknown().optional(), messages: z.array(z.looseObject({ content: z.unknown().optional(), tool_calls: z.unknown().optional() })) }).parse(body);
  if (raw.messages.some((message) => message.content === null && message.tool_calls === undefined)) {
    fail(res, 400, 'invalid message content type: <nil>');
    return;
  }
  const image = imageError(body);
  if (image !== undefined) {
    fail(res, 400, image);
    return;
  }
  const effort = body.reasoning_effort;
  let think: string | boolean | undefined;
  if (effort !== undefined && effort !== '') {
    const known = options.legacyEfforts ? LEGACY_EFFORTS.has(effort) : EFFORTS.has(effort);
    if (!known) {
      const listed = options.legacyEfforts
        ? `invalid reasoning value: '${effort}' (must be "high", "medium", "low", or "none")`
        : `invalid reasoning value: "${effort}" (must be "minimal", "low", "medium", "high", "xhigh", "ultra", "max", or "none")`;
      fail(res, 400, listed);
      return;
    }
    think = options.legacyEfforts ? (effort === 'none' ? false : effort) : EFFORTS.get(effort);
  }
  const model = options.models.find((candidate) => candidate.name === body.model || candidate.name === `${body.model}:latest`);
  if (model === undefined) {
    fail(res, 404, `model '${body.model ?? ''}' not found`);
    return;
  }
  if (model.embedding === true) {
    fail(res, 400, `"${body.model ?? ''}" does not support chat`);
    return;
  }
  if (model.thinking === true && think === undefined) think = true;
  if (model.thinking !== true && think !== undefined && think !== false) {
    fail(res, 400, `"${body.model ?? ''}" does not support thinking`);
    return;
  }
  const offered = toolNames(body);
  if (offered.length > 0 && model.tools !== true) {
    fail(res, 400, `registry.ollama.ai/library/${model.name} does not support tools`);
    return;
  }
  const fitted = fitToContext(body.messages, options.numCtx);
  const whole = body.messages.map((message) => messageText(message.content)).join('\n').length;
  if (whole > options.numCtx && model.shift === false) {
    fail(res, 400, OLLAMA_CONTEXT_MESSAGE);
    return;
  }
  // tool_choice is not read: the model sees every tool it was given.
  const prompt = lastUserText({ ...body, messages: fitted.kept }).toLowerCase();
  const said = modelAnswer({ ...body, messages: fitted.kept }, { tools: offered });
  const calls = said.call === undefined ? [] : prompt.includes('lockers') ? [LOCKER_ARGUMENTS, SECOND_LOCKER_ARGUMENTS] : [said.call.arguments];
  const structured = body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object';
  const reasons = think !== undefined && think !== false;
  const legacy = options.wire === 'legacy';
  let created = 1_767_225_600;
  let first = true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => {
    const withRole = first || legacy ? { role: 'assistant', ...delta } : delta;
    first = false;
    if (legacy) created += 1;
    return sseData({
      id: 'chatcmpl-417',
      object: 'chat.completion.chunk',
      created,
      model: body.model,
      system_fingerprint: 'fp_ollama',
      choices: [{ index: 0, delta: withRole, finish_reason: finish }],
    });
  };
  // Every delta carries content, "" when it holds reasoning or calls (and every one, legacy).
  const events: string[] = [];
  if (reasons) for (const piece of pieces(said.reasoning)) events.push(chunk({ content: '', reasoning: piece }));
  if (prompt.includes('crash')) {
    // The runner failed after the first chunk: its {"error"} line becomes an empty chunk.
    events.push(chunk({ content: '' }));
    writeEventStream(res, events);
    return;
  }
  const deltas: Record<string, unknown>[] = [];
  if (said.call !== undefined) {
    // Each call whole in its own chunk, with its own id, as Ollama's parsers hand them over.
    const name = said.call.name;
    calls.forEach((args, i) => {
      const call = { id: CALL_IDS[i] ?? `call_${i}`, index: options.callIndex === 'zero' ? 0 : i, type: 'function', function: { name, arguments: args } };
      deltas.push({ content: '', tool_calls: [call] });
    });
  } else {
    for (const piece of pieces(structured ? JSON_ANSWER : said.text)) deltas.push({ content: piece });
  }
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  deltas.forEach((delta, i) => events.push(chunk(delta, legacy && i === deltas.length - 1 ? finish : null)));
  if (!legacy) events.push(chunk({}, finish));
  if (wantsUsage(body)) {
    const completion = 12;
    events.push(
      sseData({
        id: 'chatcmpl-417',
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        system_fingerprint: 'fp_ollama',
        choices: [],
        usage: { prompt_tokens: fitted.tokens, completion_tokens: completion, total_tokens: fitted.tokens + completion },
      }),
    );
  }
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startOllamaServer(options: OllamaOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<OllamaOptions> = {
    models: OLLAMA_MODELS,
    numCtx: 4096,
    callIndex: 'zero',
    wire: 'current',
    legacyEfforts: false,
    ...options,
  };
  const upstream = await startScriptedUpstream();
  upstream.route('GET', '/v1/models', {
    kind: 'body',
    status: 200,
    body: {
      object: 'list',
      // Go marshals an empty list as null.
      data:
        settings.models.length === 0
          ? null
          : settings.models.map((model) => ({ id: model.name, object: 'model', created: 1_767_000_000, owned_by: 'library' })),
    },
  });
  upstream.chat(
    fakeChatHandler(
      (res, recorded) => {
        const messages = z.looseObject({ messages: z.unknown() }).safeParse(recorded.body);
        if (messages.success && Array.isArray(messages.data.messages) && messages.data.messages.length === 0) {
          fail(res, 400, "[] is too short - 'messages'");
        } else fail(res, 400, 'json: cannot unmarshal string into Go struct field ChatCompletionRequest.messages of type []openai.Message');
      },
      (body, res) => answer(body, res, settings),
    ),
  );
  // The legacy routes (docs/ollama.md): `suffix` filled in, embeddings in base64 when asked,
  // and with usage asked every completion chunk carries `usage` (zeros until the last chunk).
  const completionChunk = (body: { model?: string | undefined }, choices: unknown[], usage?: unknown) => ({
    id: 'cmpl-417',
    object: 'text_completion',
    created: 1_767_000_100,
    model: body.model ?? '',
    system_fingerprint: 'fp_ollama',
    choices,
    ...(usage === undefined ? {} : { usage }),
  });
  const zeros = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  upstream.route(
    'POST',
    '/v1/completions',
    fakeCompletionHandler({
      suffix: 'fill',
      promptString: true,
      chunk: (text, finish, body) =>
        completionChunk(body, [{ text, index: 0, finish_reason: finish }], body.stream_options?.include_usage === true ? zeros : undefined),
      usageChunk: (usage, body) => completionChunk(body, [], usage),
      refuse: (res) => fail(res, 400, 'json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string'),
    }),
  );
  const embeddings = fakeEmbeddingHandler({ base64: true, model: (body) => body.model ?? '', refuse: (res) => fail(res, 400, 'invalid input') });
  upstream.route('POST', '/v1/embeddings', {
    kind: 'handler',
    handle: (req, res, recorded) => {
      const named = z.looseObject({ model: z.string() }).safeParse(recorded.body);
      const model = named.success ? named.data.model : '';
      if (!settings.models.some((entry) => entry.name === model && entry.embedding === true)) {
        fail(res, 400, `"${model}" does not support embedding`);
        return;
      }
      if (embeddings.kind === 'handler') return embeddings.handle(req, res, recorded);
    },
  });
  return upstream;
}
