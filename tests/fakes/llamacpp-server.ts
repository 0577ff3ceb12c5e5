/**
 * A fake llama.cpp `llama-server` (docs/wire-protocol.md#messages, #tools, #optional-fields,
 * #chunks, #errors-inside-the-stream, #http-errors, #model-listing), serving one model under its
 * path whatever id a request names: keeps `required` through its grammar (a call even to say hello,
 * after the answer the grammar lets come first), does not keep a named function, and under `none`
 * lets the model write a call; refuses a `tool_choice` outside the protocol; answers an image
 * without its projector with 500; a prompt over `n_ctx` with 400 `exceed_context_size_error`
 * carrying `n_prompt_tokens` and `n_ctx`; first delta `{"role":"assistant","content":null}`.
 *
 * As the real server streams (recorded from v0.5.0, tests/fixtures/llamacpp/llamacpp-v0.5.0-*):
 * one token per chunk for reasoning, content and call arguments alike; `chatcmpl-` and 32 random
 * characters as the id, 32 random characters as each call's id; `X-Accel-Buffering: no` and
 * `Server: llama.cpp` on the stream; `timings` on the usage chunk, or on the finish chunk when
 * no usage was asked; `prompt_tokens_details.cached_tokens` in the usage.
 *
 * Two releases differ (docs/llamacpp-real.md): `b11429` (the reference's, serving Muse Glimmer,
 * whose template reads `reasoning_strength`, so it reasons whatever `reasoning_effort` says) fails
 * the stream with an error chunk when the model writes a call under `none`, and lists
 * `architecture.input_modalities`; `v0.5.0` (the one `npm run test:real` builds, serving a
 * Qwen3 template) sends that call's markup as content and finishes `stop`, turns reasoning off
 * for `reasoning_effort: "none"`, and lists only the `models` array's `capabilities`.
 */
import { randomInt } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler, fakeEmbeddingHandler } from './fake-legacy.js';
import {
  fakeChatBodySchema,
  hasImagePart,
  messageText,
  modelAnswer,
  promptText,
  sseData,
  toolNames,
  wantsUsage,
  writeJson,
  type FakeChatBody,
} from './fake-model.js';

export interface LlamaCppOptions {
  /** The image projector is loaded (`--mmproj`). */
  mmproj?: boolean;
  /** The context, in prompt characters (a token per character here). */
  nCtx?: number;
  modelPath?: string;
  /** Started with `--embeddings` (without it, /v1/embeddings is 501). */
  embeddings?: boolean;
  /** Which release it plays where releases differ (see above); default `b11429`, the reference's. */
  release?: 'b11429' | 'v0.5.0';
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** llama.cpp's random_string(): 32 characters of [0-9A-Za-z]. */
export function llamaRandomString(): string {
  let out = '';
  for (let i = 0; i < 32; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** About one token per piece, as llama.cpp streams: a word with its leading space, or a sign. */
export function tokenPieces(text: string): string[] {
  return text.match(/\s*[A-Za-z0-9]+|\s*[^\sA-Za-z0-9]|\s+$/g) ?? [];
}

/** The headers llama-server sends on a stream. */
const STREAM_HEADERS = { 'content-type': 'text/event-stream', server: 'llama.cpp', 'access-control-allow-origin': '', 'x-accel-buffering': 'no' };

function timings(promptTokens: number, predicted: number): Record<string, number> {
  return {
    cache_n: 0,
    prompt_n: promptTokens,
    prompt_ms: 80.5,
    prompt_per_token_ms: 80.5 / Math.max(promptTokens, 1),
    prompt_per_second: (promptTokens * 1000) / 80.5,
    predicted_n: predicted,
    predicted_ms: 600.1,
    predicted_per_token_ms: 600.1 / Math.max(predicted, 1),
    predicted_per_second: (predicted * 1000) / 600.1,
  };
}

const VALID_CHOICES = new Set(['none', 'auto', 'required']);

function answer(body: FakeChatBody, res: ServerResponse, options: Required<LlamaCppOptions>): void {
  const choice = body.tool_choice;
  if (typeof choice === 'string' && !VALID_CHOICES.has(choice)) {
    writeJson(res, 400, { error: { code: 400, message: `Invalid tool_choice: ${choice}`, type: 'invalid_request_error' } });
    return;
  }
  if (hasImagePart(body) && !options.mmproj) {
    writeJson(res, 500, {
      error: { code: 500, message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj', type: 'server_error' },
    });
    return;
  }
  const promptTokens = promptText(body).length;
  if (promptTokens > options.nCtx) {
    writeJson(res, 400, {
      error: {
        code: 400,
        message: `request (${promptTokens} tokens) exceeds the available context size (${options.nCtx} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: promptTokens,
        n_ctx: options.nCtx,
      },
    });
    return;
  }
  const id = `chatcmpl-${llamaRandomString()}`;
  const fingerprint = options.release === 'v0.5.0' ? 'b0-de3ff81' : 'b11429-3f2a1c';
  const created = 1_760_000_300;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string =>
    sseData({
      choices: [{ finish_reason: finish, index: 0, delta }],
      created,
      id,
      model: options.modelPath,
      system_fingerprint: fingerprint,
      object: 'chat.completion.chunk',
      ...extra,
    });
  const tools = toolNames(body);
  // The grammar keeps `required` (and lets the answer in words come first); a named function is
  // not kept; `none` still shows the tools to the template, and the model may write a call.
  const said = modelAnswer(body, choice === 'required' ? { tools, mustCall: true } : { tools });
  // What it would have said unconstrained: words (which the grammar lets come first), or a call.
  const free = modelAnswer(body, { tools });
  const words = free.call === undefined ? free.text : '';
  // b11429's Muse Glimmer template reads `reasoning_strength`; v0.5.0 takes `reasoning_effort: "none"` itself.
  const reasons =
    options.release === 'v0.5.0'
      ? body.reasoning_effort !== 'none' && body.chat_template_kwargs?.enable_thinking !== false
      : body.chat_template_kwargs?.reasoning_strength !== 'none';
  const events = [chunk({ role: 'assistant', content: null })];
  let predicted = 0;
  const push = (key: string, text: string): void => {
    for (const piece of tokenPieces(text)) {
      events.push(chunk({ [key]: piece }));
      predicted += 1;
    }
  };
  if (reasons) push('reasoning_content', said.reasoning);
  let finish = 'stop';
  if (said.call !== undefined && choice === 'none') {
    if (options.release !== 'v0.5.0') {
      events.push(sseData({ error: { code: 500, message: 'The model produced output that does not match the expected peg-native format', type: 'server_error' } }));
      writeStream(res, events);
      return;
    }
    // v0.5.0: the call's markup, unparsed, as content.
    push('content', `<tool_call>\n{"name": "${said.call.name}", "arguments": ${said.call.arguments}}\n</tool_call>`);
  } else if (said.call !== undefined) {
    if (choice === 'required' && words !== '') push('content', words);
    const [first = '', ...rest] = tokenPieces(said.call.arguments);
    events.push(chunk({ tool_calls: [{ index: 0, id: llamaRandomString(), type: 'function', function: { name: said.call.name, arguments: first } }] }));
    for (const piece of rest) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    predicted += 12 + rest.length;
    finish = 'tool_calls';
  } else {
    push('content', said.text);
  }
  const usage = wantsUsage(body);
  events.push(chunk({}, finish, usage ? {} : { timings: timings(promptTokens, predicted) }));
  if (usage) {
    events.push(
      sseData({
        choices: [],
        created,
        id,
        model: options.modelPath,
        system_fingerprint: fingerprint,
        object: 'chat.completion.chunk',
        usage: { completion_tokens: predicted, prompt_tokens: promptTokens, total_tokens: promptTokens + predicted, prompt_tokens_details: { cached_tokens: 0 } },
        timings: timings(promptTokens, predicted),
      }),
    );
  }
  events.push(sseData('[DONE]'));
  writeStream(res, events);
}

function writeStream(res: ServerResponse, events: readonly string[]): void {
  res.writeHead(200, STREAM_HEADERS);
  for (const event of events) res.write(event);
  res.end();
}

export async function startLlamaCppServer(options: LlamaCppOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<LlamaCppOptions> = {
    mmproj: false,
    embeddings: false,
    nCtx: 16384,
    modelPath: '/models/muse-glimmer-30b-Q4_K_M.gguf',
    release: 'b11429',
    ...options,
  };
  const upstream = await startScriptedUpstream();
  const modalities = settings.mmproj ? ['text', 'image'] : ['text'];
  upstream.route('GET', '/v1/models', {
    kind: 'body',
    status: 200,
    body: {
      models: [{ name: settings.modelPath, model: settings.modelPath, type: 'model', capabilities: settings.mmproj ? ['completion', 'multimodal'] : ['completion'] }],
      object: 'list',
      data: [
        {
          id: settings.modelPath,
          object: 'model',
          created: 1_760_000_000,
          owned_by: 'llamacpp',
          meta: { n_ctx: settings.nCtx, n_ctx_train: 262144, n_vocab: 151936, n_params: 30_500_000_000 },
          // v0.5.0 lists no architecture: only the models array's capabilities say multimodal.
          ...(settings.release === 'v0.5.0' ? { aliases: [settings.modelPath], tags: [] } : { architecture: { input_modalities: modalities } }),
        },
      ],
    },
  });
  // Its server properties: the context of one slot (`-c` over `--parallel`), as the real one says.
  upstream.route('GET', '/props', {
    kind: 'body',
    status: 200,
    body: {
      default_generation_settings: { n_ctx: settings.nCtx, params: { n_predict: -1, temperature: 0.8 } },
      total_slots: 1,
      model_path: settings.modelPath,
      modalities: { vision: settings.mmproj, audio: false },
      build_info: settings.release === 'v0.5.0' ? 'b0-de3ff81' : 'b11429-3f2a1c',
    },
  });
  // Its tokenizer, as Messages count_tokens asks it: the template renders the messages (here one
  // line per message, its role marked), then /tokenize counts a token per character, as this
  // fake counts its context.
  upstream.route('POST', '/apply-template', {
    kind: 'handler',
    handle: (_req, res, recorded) => {
      const body = fakeChatBodySchema.safeParse(recorded.body);
      if (!body.success) {
        writeJson(res, 400, { error: { code: 400, message: "'messages' is required", type: 'invalid_request_error' } });
        return;
      }
      writeJson(res, 200, { prompt: body.data.messages.map((m) => `<|${m.role}|>${messageText(m.content)}`).join('\n') + '\n<|assistant|>' });
    },
  });
  upstream.route('POST', '/tokenize', {
    kind: 'handler',
    handle: (_req, res, recorded) => {
      const content = z.looseObject({ content: z.string() }).safeParse(recorded.body);
      if (!content.success) {
        writeJson(res, 400, { error: { code: 400, message: '"content" must be provided', type: 'invalid_request_error' } });
        return;
      }
      writeJson(res, 200, { tokens: Array.from(content.data.content, (_c, i) => i) });
    },
  });
  upstream.chat(
    fakeChatHandler(
      (res) => writeJson(res, 400, { error: { code: 400, message: "'messages' is required", type: 'invalid_request_error' } }),
      (body, res) => answer(body, res, settings),
    ),
  );
  const invalid = (message: string) => (res: ServerResponse) =>
    writeJson(res, 400, { error: { code: 400, message, type: 'invalid_request_error' } });
  upstream.route(
    'POST',
    '/v1/completions',
    fakeCompletionHandler({
      // Its OpenAI-compatible /v1/completions does not fill in the middle (FIM is its own
      // /infill): the release svir was checked against (b0-de3ff81) answers as if `suffix` were
      // absent (other releases refuse it: "Unsupported param: suffix").
      suffix: 'ignore',
      // Usage (with timings) rides on the finish chunk, asked for or not.
      usageOnFinish: true,
      chunk: (text, finish, _body, logprobs) => ({
        choices: [{ text, index: 0, logprobs, finish_reason: finish }],
        created: 1_760_000_300,
        id: 'chatcmpl-llc1',
        model: settings.modelPath,
        system_fingerprint: 'b11429-3f2a1c',
        object: 'text_completion',
      }),
      usageChunk: (usage) => ({
        choices: [],
        created: 1_760_000_300,
        id: 'chatcmpl-llc1',
        model: settings.modelPath,
        object: 'text_completion',
        usage: { ...usage, prompt_tokens_details: { cached_tokens: 0 } },
        timings: { cache_n: 0, prompt_n: usage.prompt_tokens, prompt_ms: 20.5, predicted_n: usage.completion_tokens, predicted_ms: 90.1 },
      }),
      refuse: invalid('"prompt" must be provided'),
    }),
  );
  upstream.route(
    'POST',
    '/v1/embeddings',
    settings.embeddings
      ? fakeEmbeddingHandler({ base64: true, model: () => settings.modelPath, refuse: invalid('"input" must be provided') })
      : {
          kind: 'body',
          status: 501,
          body: { error: { code: 501, message: 'This server does not support embeddings. Start it with `--embeddings`', type: 'not_supported_error' } },
        },
  );
  return upstream;
}
