/**
 * A fake LM Studio (docs/wire-protocol.md#tools, #structured-output, #chunks,
 * #errors-inside-the-stream): takes `tool_choice` strings only and refuses the object form; takes
 * `json_schema` and `text` only; holds the reasoning to the schema (the JSON arrives as
 * reasoning_content unless `reasoning_effort` is `none`); accepts `required` without keeping it;
 * sends `"\n\n"` as content after reasoning; reports a prompt over its context as an `event: error`
 * with status 200; answers an unknown model with the loaded one.
 */
import type { ServerResponse } from 'node:http';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler, fakeEmbeddingHandler } from './fake-legacy.js';
import {
  JSON_ANSWER,
  modelAnswer,
  pieces,
  promptText,
  sseData,
  toolNames,
  wantsUsage,
  writeEventStream,
  writeJson,
  type FakeChatBody,
} from './fake-model.js';

export interface LmStudioOptions {
  /** The loaded model: it answers every request, known id or not. */
  loadedModel?: string;
  /** Prompt characters that fit the loaded context. */
  contextChars?: number;
  /**
   * The schema holds the reasoning even at `reasoning_effort: "none"` (a model whose template
   * reasons regardless): the JSON still arrives as reasoning_content.
   */
  schemaReasoningAlways?: boolean;
}

export const LMS_CONTEXT_MESSAGE =
  'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input';

function answer(body: FakeChatBody, res: ServerResponse, options: Required<LmStudioOptions>): void {
  if (typeof body.tool_choice === 'object' && body.tool_choice !== null) {
    writeJson(res, 400, { error: "Invalid tool_choice type: 'object'. Supported string values: none, auto, required" });
    return;
  }
  const format = body.response_format?.type;
  if (format !== undefined && format !== 'json_schema' && format !== 'text') {
    writeJson(res, 400, { error: "'response_format.type' must be 'json_schema' or 'text'" });
    return;
  }
  if (promptText(body).length > options.contextChars) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`event: error\n${sseData({ error: { message: LMS_CONTEXT_MESSAGE }, message: LMS_CONTEXT_MESSAGE })}`);
    return;
  }
  const model = options.loadedModel;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sseData({
      id: 'chatcmpl-lms1',
      object: 'chat.completion.chunk',
      created: 1_760_000_500,
      model,
      system_fingerprint: model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const reasoningOn = body.reasoning_effort !== 'none' || (format === 'json_schema' && options.schemaReasoningAlways);
  const events = [chunk({ role: 'assistant', content: '' })];
  let finish = 'stop';
  if (format === 'json_schema') {
    // The schema holds the reasoning too: with reasoning on, the JSON is all reasoning.
    for (const piece of pieces(JSON_ANSWER, 5)) events.push(chunk(reasoningOn ? { reasoning_content: piece } : { content: piece }));
  } else {
    // `none` is kept; `required` is accepted and not kept: the model does as with `auto`.
    const offered = body.tool_choice === 'none' ? [] : toolNames(body);
    const said = modelAnswer(body, { tools: offered });
    if (reasoningOn) {
      for (const piece of pieces(said.reasoning)) events.push(chunk({ reasoning_content: piece }));
      events.push(chunk({ content: '\n\n' }));
    }
    if (said.call !== undefined) {
      events.push(chunk({ tool_calls: [{ index: 0, id: '728104635', type: 'function', function: { name: said.call.name, arguments: '' } }] }));
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: said.call.arguments } }] }));
      finish = 'tool_calls';
    } else {
      for (const piece of pieces(said.text)) events.push(chunk({ content: piece }));
    }
  }
  events.push(chunk({}, finish));
  if (wantsUsage(body)) {
    events.push(
      sseData({ id: 'chatcmpl-lms1', object: 'chat.completion.chunk', created: 1_760_000_500, model, choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } }),
    );
  }
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startLmStudioServer(options: LmStudioOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<LmStudioOptions> = { loadedModel: 'qwen3.8-27b', contextChars: 4000, schemaReasoningAlways: false, ...options };
  const upstream = await startScriptedUpstream();
  upstream.route('GET', '/v1/models', {
    kind: 'body',
    status: 200,
    body: {
      object: 'list',
      data: [
        { id: settings.loadedModel, object: 'model', owned_by: 'organization_owner' },
        { id: 'text-embedding-nomic-embed-text-v1.5', object: 'model', owned_by: 'organization_owner' },
      ],
    },
  });
  upstream.chat(
    fakeChatHandler(
      (res) => writeJson(res, 400, { error: "'messages' field is required" }),
      (body, res) => answer(body, res, settings),
    ),
  );
  const completionChunk = (body: { model?: string | undefined }, choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: 'cmpl-lms1',
    object: 'text_completion',
    created: 1_760_000_500,
    model: body.model ?? settings.loadedModel,
    choices,
    ...extra,
  });
  upstream.route(
    'POST',
    '/v1/completions',
    fakeCompletionHandler({
      // Its documented parameters have no `suffix`: the prompt alone is continued.
      suffix: 'ignore',
      chunk: (text, finish, body, logprobs) => completionChunk(body, [{ index: 0, text, logprobs, finish_reason: finish }]),
      usageChunk: (usage, body) => completionChunk(body, [], { usage }),
      refuse: (res) => writeJson(res, 400, { error: "'prompt' field is required" }),
    }),
  );
  upstream.route(
    'POST',
    '/v1/embeddings',
    // encoding_format is not read: floats, even when base64 was asked (its tracker, issue 756).
    fakeEmbeddingHandler({
      base64: false,
      model: (body) => body.model ?? 'text-embedding-nomic-embed-text-v1.5',
      refuse: (res) => writeJson(res, 400, { error: "'input' field is required" }),
    }),
  );
  return upstream;
}
