/**
 * A fake vLLM (docs/wire-protocol.md#tools, #optional-fields, #chunks, #tool-calls, #reasoning,
 * #http-errors, #model-listing): hands `reasoning_effort` to a Qwen3.8-like template that takes
 * `none` (no reasoning), `low`, `medium` and `xhigh` and refuses anything else with 400; with its
 * tool-call parser keeps all four `tool_choice` forms and finishes a named call with `stop`;
 * without it refuses tools unless `none`; with its reasoning parser sends `reasoning`, without it
 * the reasoning arrives as content closed by `</think>` (the template opened the tag); null
 * `prompt_token_ids`, `prompt_text` and `token_ids`; overflow as `param: input_tokens`, a
 * `max_tokens` above the model length as a parameter error. `engineFailure` makes the engine fail
 * the way older vLLM reports it: an error body at the top of a chunk
 * (`{"object":"error","message":...,"code":500}`, no `error` key) after the first words or as the
 * first event, or a finish reason of `abort` after the first words.
 */
import type { ServerResponse } from 'node:http';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler, fakeEmbeddingHandler } from './fake-legacy.js';
import {
  JSON_ANSWER,
  modelAnswer,
  namedChoice,
  fakeChatBodySchema,
  pieces,
  promptText,
  sseData,
  toolNames,
  wantsUsage,
  writeEventStream,
  writeJson,
  type FakeChatBody,
} from './fake-model.js';

export interface VllmOptions {
  toolParser?: boolean;
  reasoningParser?: boolean;
  servedModelName?: string;
  /** Model length, in prompt characters. */
  maxModelLen?: number;
  /** How the engine fails every generation; none by default. */
  engineFailure?: 'none' | 'error-object-mid-stream' | 'error-object-first' | 'abort';
}

const ENGINE_ERROR = { object: 'error', message: 'EngineCore encountered an issue: CUDA error: an illegal memory access was encountered', type: 'InternalServerError', param: null, code: 500 };

const TEMPLATE_EFFORTS = new Set(['none', 'low', 'medium', 'xhigh']);

function badRequest(res: ServerResponse, message: string, param: string | null = null): void {
  writeJson(res, 400, { error: { message, type: 'BadRequestError', param, code: 400 } });
}

function answer(body: FakeChatBody, res: ServerResponse, options: Required<VllmOptions>): void {
  const effort = body.reasoning_effort;
  if (effort !== undefined && !TEMPLATE_EFFORTS.has(effort)) {
    badRequest(res, `Unexpected reasoning effort ${effort}. Supported types are xhigh (default), medium, and low.`);
    return;
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens > options.maxModelLen) {
    badRequest(res, `max_tokens=${maxTokens} cannot be greater than max_model_len=max_total_tokens=${options.maxModelLen}`, 'max_tokens');
    return;
  }
  const promptTokens = promptText(body).length;
  if (promptTokens > options.maxModelLen) {
    badRequest(
      res,
      `This model's maximum context length is ${options.maxModelLen} tokens. However, you requested 0 output tokens and your prompt contains at least ${promptTokens} input tokens, for a total of at least ${promptTokens} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
      'input_tokens',
    );
    return;
  }
  const choice = body.tool_choice;
  const named = namedChoice(choice);
  const tools = toolNames(body);
  if (!options.toolParser && tools.length > 0 && choice !== 'none') {
    if (choice === undefined || choice === 'auto') {
      badRequest(res, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
    } else {
      badRequest(res, `tool_choice=function "${named ?? 'required'}" requires --tool-call-parser to be set`);
    }
    return;
  }
  const offered = choice === 'none' ? [] : tools;
  const said = modelAnswer(body, named !== undefined ? { tools: offered, mustCall: named } : choice === 'required' ? { tools: offered, mustCall: true } : { tools: offered });
  const structured = body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object';
  const text = structured ? JSON_ANSWER : said.text;
  // The template reads the effort, or its switch in chat_template_kwargs.
  const reasons = effort !== 'none' && body.chat_template_kwargs?.enable_thinking !== false;
  const model = options.servedModelName;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, first = false): string =>
    sseData({
      id: 'chatcmpl-b31f',
      object: 'chat.completion.chunk',
      created: 1_760_000_400,
      model,
      ...(first ? { prompt_token_ids: null, prompt_text: null } : {}),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, token_ids: null }],
    });
  const failure = options.engineFailure;
  if (failure === 'error-object-first') {
    writeEventStream(res, [sseData(ENGINE_ERROR)]);
    return;
  }
  if (failure === 'error-object-mid-stream' || failure === 'abort') {
    const words = [chunk({ role: 'assistant', content: '' }, null, true), chunk({ content: 'One, two,' })];
    writeEventStream(res, failure === 'abort' ? [...words, chunk({ content: '' }, 'abort'), sseData('[DONE]')] : [...words, sseData(ENGINE_ERROR)]);
    return;
  }
  const events = [chunk({ role: 'assistant', content: '' }, null, true)];
  if (reasons && options.reasoningParser) for (const piece of pieces(said.reasoning)) events.push(chunk({ reasoning: piece }));
  // Structured output is held to the schema from the first token: no room for reasoning.
  if (reasons && !options.reasoningParser && !structured) {
    // The template opened <think>; without a parser the reasoning is content up to the marker.
    for (const piece of pieces(`${said.reasoning}\n</think>\n\n`, 7)) events.push(chunk({ content: piece }));
  }
  let finish = 'stop';
  if (said.call !== undefined) {
    events.push(chunk({ tool_calls: [{ id: 'chatcmpl-tool-9d2e', type: 'function', index: 0, function: { name: said.call.name, arguments: '' } }] }));
    for (const piece of pieces(said.call.arguments, 5)) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    // A named call finishes with stop, as OpenAI's does.
    finish = named !== undefined ? 'stop' : 'tool_calls';
  } else {
    for (const piece of pieces(text)) events.push(chunk({ content: piece }));
  }
  events.push(chunk({ content: '' }, finish));
  if (wantsUsage(body)) {
    const usage: Record<string, unknown> = { prompt_tokens: promptTokens, total_tokens: promptTokens + 30, completion_tokens: 30, prompt_tokens_details: null };
    if (reasons && options.reasoningParser) usage.completion_tokens_details = { reasoning_tokens: 9 };
    events.push(sseData({ id: 'chatcmpl-b31f', object: 'chat.completion.chunk', created: 1_760_000_400, model, choices: [], usage }));
  }
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startVllmServer(options: VllmOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<VllmOptions> = {
    toolParser: true,
    reasoningParser: true,
    servedModelName: 'qwen3.8',
    maxModelLen: 262144,
    engineFailure: 'none',
    ...options,
  };
  const upstream = await startScriptedUpstream();
  upstream.route('GET', '/v1/models', {
    kind: 'body',
    status: 200,
    body: {
      object: 'list',
      data: [{ id: settings.servedModelName, object: 'model', created: 1_760_000_000, owned_by: 'vllm', root: '/models/Qwen3.8-27B', parent: null, max_model_len: settings.maxModelLen }],
    },
  });
  // Its tokenizer route: a chat request's prompt counted with the template, a token per character
  // of the prompt here, as this fake counts its context.
  upstream.route('POST', '/tokenize', {
    kind: 'handler',
    handle: (_req, res, recorded) => {
      const body = fakeChatBodySchema.safeParse(recorded.body);
      if (!body.success) {
        badRequest(res, 'messages: Field required');
        return;
      }
      const count = promptText(body.data).length;
      writeJson(res, 200, { count, max_model_len: settings.maxModelLen, tokens: Array.from({ length: count }, (_v, i) => i), token_strs: null });
    },
  });
  upstream.chat(
    fakeChatHandler(
      (res) => badRequest(res, 'messages: Field required'),
      (body, res) => answer(body, res, settings),
    ),
  );
  const completionChunk = (choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id: 'cmpl-vl1',
    object: 'text_completion',
    created: 1_760_000_400,
    model: settings.servedModelName,
    choices,
    ...extra,
  });
  upstream.route(
    'POST',
    '/v1/completions',
    fakeCompletionHandler({
      suffix: (res) => badRequest(res, 'suffix is not currently supported'),
      chunk: (text, finish, _body, logprobs) =>
        completionChunk([{ index: 0, text, logprobs, finish_reason: finish, stop_reason: null, token_ids: null, prompt_token_ids: null }]),
      usageChunk: (usage) => completionChunk([], { usage }),
      refuse: (res) => badRequest(res, 'Field required', 'prompt'),
    }),
  );
  upstream.route(
    'POST',
    '/v1/embeddings',
    fakeEmbeddingHandler({ base64: true, model: () => settings.servedModelName, refuse: (res) => badRequest(res, 'Field required', 'input') }),
  );
  return upstream;
}
