/**
 * A fake llama.cpp `llama-server` (R§2.2, §2.4, §2.5, §3.2, §3.5, §5, §6), serving one model
 * under its path whatever id a request names: keeps `required` through its grammar (a call even
 * to say hello), does not keep a named function, and under `none` lets the model write a call
 * that its parser then fails with an error chunk; refuses a `tool_choice` outside the protocol;
 * answers an image without its projector with 500; a prompt over `n_ctx` with 400
 * `exceed_context_size_error`; reasons whatever `reasoning_effort` says, since its template
 * reads `reasoning_strength`; first delta `{"role":"assistant","content":null}`; usage with
 * timings.
 */
import type { ServerResponse } from 'node:http';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler, fakeEmbeddingHandler } from './fake-legacy.js';
import {
  hasImagePart,
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

export interface LlamaCppOptions {
  /** The image projector is loaded (`--mmproj`). */
  mmproj?: boolean;
  /** The context, in prompt characters (a token per character here). */
  nCtx?: number;
  modelPath?: string;
  /** Started with `--embeddings` (without it, /v1/embeddings is 501). */
  embeddings?: boolean;
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
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sseData({
      choices: [{ finish_reason: finish, index: 0, delta }],
      created: 1_760_000_300,
      id: 'chatcmpl-ll1',
      model: options.modelPath,
      system_fingerprint: 'b11429-3f2a1c',
      object: 'chat.completion.chunk',
    });
  const tools = toolNames(body);
  // The grammar keeps `required`; a named function is not kept; `none` still shows the tools
  // to the template, and the model may write a call the parser does not expect.
  const said = modelAnswer(body, choice === 'required' ? { tools, mustCall: true } : { tools });
  // Its template reads `reasoning_strength`, not `reasoning_effort`.
  const reasons = body.chat_template_kwargs?.reasoning_strength !== 'none';
  const events = [chunk({ role: 'assistant', content: null })];
  if (reasons) for (const piece of pieces(said.reasoning)) events.push(chunk({ reasoning_content: piece }));
  if (said.call !== undefined && choice === 'none') {
    events.push(sseData({ error: { code: 500, message: 'The model produced output that does not match the expected peg-native format', type: 'server_error' } }));
    writeEventStream(res, events);
    return;
  }
  let finish = 'stop';
  if (said.call !== undefined) {
    events.push(chunk({ tool_calls: [{ index: 0, id: 'Qk2vV7wz', type: 'function', function: { name: said.call.name, arguments: '{"' } }] }));
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: said.call.arguments.slice(2) } }] }));
    finish = 'tool_calls';
  } else {
    for (const piece of pieces(said.text)) events.push(chunk({ content: piece }));
  }
  events.push(chunk({}, finish));
  if (wantsUsage(body)) {
    events.push(
      sseData({
        choices: [],
        created: 1_760_000_300,
        id: 'chatcmpl-ll1',
        model: options.modelPath,
        object: 'chat.completion.chunk',
        usage: { completion_tokens: 20, prompt_tokens: promptTokens, total_tokens: promptTokens + 20 },
        timings: { prompt_n: promptTokens, prompt_ms: 80.5, predicted_n: 20, predicted_ms: 600.1 },
      }),
    );
  }
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startLlamaCppServer(options: LlamaCppOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<LlamaCppOptions> = { mmproj: false, embeddings: false, nCtx: 16384, modelPath: '/models/muse-glimmer-30b-Q4_K_M.gguf', ...options };
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
          architecture: { input_modalities: modalities },
        },
      ],
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
      // Its OpenAI-compatible /v1/completions refuses the field (FIM is its own /infill).
      suffix: invalid('Unsupported param: suffix'),
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
        usage,
        timings: { prompt_n: usage.prompt_tokens, prompt_ms: 20.5, predicted_n: usage.completion_tokens, predicted_ms: 90.1 },
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
