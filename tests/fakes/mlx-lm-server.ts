/**
 * A fake mlx-lm server (docs/wire-protocol.md#messages, #tools, #optional-fields,
 * #structured-output, #sse-framing, #usage, #http-errors, #model-listing): takes text parts only
 * and answers any other part with 404 and a string error, a JSON body also for a stream; reads no
 * `tool_choice` (the model calls the locker tool whatever it says), no `reasoning_effort` (only
 * `chat_template_kwargs.enable_thinking` turns reasoning off) and no `response_format` (asked for
 * JSON, the model writes a Markdown table); sends `: keepalive` comments while it reads the prompt,
 * `role` on every delta, reasoning under `reasoning`, and a usage chunk of object `chat.completion`
 * with cached tokens; lists its Hugging Face cache and the loaded model path.
 */
import type { ServerResponse } from 'node:http';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler } from './fake-legacy.js';
import {
  hasNonTextPart,
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

export interface MlxLmOptions {
  modelPath?: string;
}

export const MARKDOWN_TABLE = '| locker | number |\n|---|---|\n| blue | 4 |';

function answer(body: FakeChatBody, res: ServerResponse, modelPath: string): void {
  if (hasNonTextPart(body)) {
    writeJson(res, 404, { error: "Only 'text' content type is supported." });
    return;
  }
  const said = modelAnswer(body, { tools: toolNames(body) });
  const structured = body.response_format !== undefined && body.response_format.type !== 'text';
  const reasons = body.chat_template_kwargs?.enable_thinking !== false;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sseData({
      id: 'chatcmpl-7c1e',
      system_fingerprint: '0.32.0',
      object: 'chat.completion.chunk',
      model: modelPath,
      created: 1_760_000_100,
      choices: [{ index: 0, delta: { role: 'assistant', ...delta }, logprobs: null, finish_reason: finish }],
    });
  const total = promptText(body).length;
  const events = [`: keepalive ${Math.floor(total / 2)}/${total}\n\n`, `: keepalive ${total}/${total}\n\n`];
  if (reasons) {
    for (const piece of pieces(said.reasoning)) events.push(chunk({ reasoning: piece }));
    events.push(chunk({ content: '\n\n' }));
  }
  let finish = 'stop';
  if (said.call !== undefined) {
    events.push(chunk({ tool_calls: [{ function: { name: said.call.name, arguments: said.call.arguments }, type: 'function', id: 'call_6b1f', index: 0 }] }));
    finish = 'tool_calls';
  } else {
    for (const piece of pieces(structured ? MARKDOWN_TABLE : said.text)) events.push(chunk({ content: piece }));
  }
  events.push(chunk({ content: '' }, finish));
  if (wantsUsage(body)) {
    events.push(
      sseData({
        id: 'chatcmpl-7c1e',
        system_fingerprint: '0.32.0',
        object: 'chat.completion',
        model: modelPath,
        created: 1_760_000_100,
        choices: [],
        usage: { prompt_tokens: total, completion_tokens: 16, total_tokens: total + 16, prompt_tokens_details: { cached_tokens: 3 } },
      }),
    );
  }
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startMlxLmServer(options: MlxLmOptions = {}): Promise<ScriptedUpstream> {
  const modelPath = options.modelPath ?? '/Users/me/models/Qwen3.8-27B-4bit';
  const upstream = await startScriptedUpstream();
  upstream.route('GET', '/v1/models', {
    kind: 'body',
    status: 200,
    body: {
      object: 'list',
      data: [
        { id: 'mlx-community/Qwen3.8-8B-4bit', object: 'model', created: 1_760_000_000 },
        { id: 'unsloth/Qwen-Image-2.1', object: 'model', created: 1_760_000_000 },
        { id: modelPath, object: 'model', created: 1_760_000_000 },
      ],
    },
  });
  upstream.chat(
    fakeChatHandler(
      (res) => writeJson(res, 404, { error: 'Invalid request body' }),
      (body, res) => answer(body, res, modelPath),
    ),
  );
  const base = (body: { model?: string | undefined }) => ({
    id: 'cmpl-5f1c2a',
    system_fingerprint: '0.32.0-0.30.1-macOS-15.6-arm64-applegpu_g16s',
    object: 'text_completion',
    model: body.model ?? modelPath,
    created: 1_760_000_600,
  });
  upstream.route(
    'POST',
    '/v1/completions',
    fakeCompletionHandler({
      // handle_text_completions reads `prompt` only.
      suffix: 'ignore',
      promptString: true,
      chunk: (text, finish, body, logprobs) => ({ ...base(body), choices: [{ index: 0, finish_reason: finish, text, ...(logprobs === null ? {} : { logprobs }) }] }),
      // Its usage chunk says `chat.completion` on this route too.
      usageChunk: (usage, body) => ({ ...base(body), object: 'chat.completion', choices: [], usage }),
      refuse: (res) => writeJson(res, 404, { error: 'Request did not contain a prompt' }),
    }),
  );
  // No /v1/embeddings: any other POST path is 404 with the words "Not Found" as the body.
  upstream.route('POST', '/v1/embeddings', { kind: 'body', status: 404, headers: { 'content-type': 'application/json' }, body: 'Not Found' });
  return upstream;
}
