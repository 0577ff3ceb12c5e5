/**
 * A fake Azure OpenAI deployment (docs/wire-protocol.md#tools, #structured-output,
 * #content-filtering, #http-errors): `/openai/v1/chat/completions` (the deployment is the model)
 * and `/openai/deployments/{name}/chat/completions?api-version=...`, authenticated by the `api-key`
 * header only; refuses `tool_choice` without `tools` and a `json_object` request without the word
 * JSON; refuses a jailbreak prompt with 400 `content_filter`; streams with the prompt-filter chunk
 * first, `refusal: null` on the first delta, `obfuscation`, `service_tier`, `system_fingerprint:
 * null`, `usage: null`, the model version in `model`; and blocks a blocklisted word in one of its
 * filter modes.
 */
import type { ServerResponse } from 'node:http';
import { startScriptedUpstream, type RecordedRequest, type ScriptedResponse, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeCompletionHandler, fakeEmbeddingHandler } from './fake-legacy.js';
import {
  fakeChatBodySchema,
  JSON_ANSWER,
  lastUserText,
  modelAnswer,
  namedChoice,
  pieces,
  promptText,
  sseData,
  toolNames,
  wantsUsage,
  writeEventStream,
  writeJson,
  type FakeChatBody,
} from './fake-model.js';

/**
 * How the filter reports the blocklisted word: `default` (a content_filter finish mid-stream),
 * `async` (an annotation with the finish, mid-stream), `async-after-stop` (an annotation with
 * only the verdict, after the model's stop), `annotate` (detected, not filtered).
 */
export type AzureFilterMode = 'default' | 'async' | 'async-after-stop' | 'annotate';

export interface AzureOptions {
  apiKey?: string;
  deployments?: readonly string[];
  filter?: AzureFilterMode;
  modelVersion?: string;
}

export const BLOCKED_WORD = 'svirword';

const SAFE = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

function invalid(res: ServerResponse, message: string, param: string): void {
  writeJson(res, 400, { error: { message, type: 'invalid_request_error', param, code: null } });
}

function answer(body: FakeChatBody, deployment: string, res: ServerResponse, options: Required<AzureOptions>): void {
  if (body.tool_choice !== undefined && (body.tools === undefined || body.tools.length === 0)) {
    invalid(res, "'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
    return;
  }
  if (body.response_format?.type === 'json_object' && !/json/i.test(promptText(body))) {
    invalid(res, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", 'messages');
    return;
  }
  if (/ignore all previous instructions/i.test(lastUserText(body))) {
    writeJson(res, 400, {
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { ...SAFE, jailbreak: { detected: true, filtered: true } } },
      },
    });
    return;
  }
  const named = namedChoice(body.tool_choice);
  const tools = body.tool_choice === 'none' ? [] : toolNames(body);
  const said = modelAnswer(body, named !== undefined ? { tools, mustCall: named } : body.tool_choice === 'required' ? { tools, mustCall: true } : { tools });
  const structured = body.response_format !== undefined && body.response_format.type !== 'text';
  const model = options.modelVersion;
  const mode = options.filter;
  const perChoiceResults = mode === 'default' ? SAFE : {};
  const chunk = (delta: Record<string, unknown> | undefined, finish: string | null = null, results: Record<string, unknown> = perChoiceResults): string => {
    const choice: Record<string, unknown> = { content_filter_results: results, finish_reason: finish, index: 0, logprobs: null };
    if (delta !== undefined) choice.delta = delta;
    return sseData({
      choices: [choice],
      created: 1_790_000_000,
      id: 'chatcmpl-AZ7f',
      model,
      obfuscation: 'k2PZ',
      object: 'chat.completion.chunk',
      service_tier: 'default',
      system_fingerprint: null,
      usage: null,
    });
  };
  const annotation = (results: Record<string, unknown>, finish: string | null = null): string =>
    sseData({
      choices: [{ content_filter_offsets: { check_offset: 140, start_offset: 0, end_offset: 60 }, content_filter_results: results, finish_reason: finish, index: 0 }],
      created: 0,
      id: '',
      model: '',
      object: '',
    });
  const blocked = { ...SAFE, custom_blocklists: [{ filtered: true, id: 'svir' }] };
  const usage = sseData({
    choices: [],
    created: 1_790_000_000,
    id: 'chatcmpl-AZ7f',
    model,
    object: 'chat.completion.chunk',
    usage: { completion_tokens: 12, prompt_tokens: 20, total_tokens: 32, completion_tokens_details: { reasoning_tokens: 0 }, prompt_tokens_details: { cached_tokens: 0 } },
    latency_checkpoint: { first_token_ms: 300 },
    routing: { deployment },
  });

  const events = [
    sseData({
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { ...SAFE, jailbreak: { detected: false, filtered: false } } }],
    }),
    chunk({ content: '', refusal: null, role: 'assistant' }, null, {}),
  ];
  if (said.call !== undefined) {
    events.push(chunk({ tool_calls: [{ index: 0, id: 'call_az1', type: 'function', function: { name: said.call.name, arguments: '' } }] }));
    for (const piece of pieces(said.call.arguments, 5)) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    events.push(chunk({}, named !== undefined ? 'stop' : 'tool_calls', {}));
    if (wantsUsage(body)) events.push(usage);
    events.push(sseData('[DONE]'));
    writeEventStream(res, events);
    return;
  }
  const text = structured ? JSON_ANSWER : said.text;
  let seen = 0;
  for (const piece of text.split(/(?<= )/)) {
    events.push(chunk({ content: piece }));
    if (piece.includes(BLOCKED_WORD)) seen += 1;
    if (mode === 'default' && seen === 3) {
      events.push(chunk({}, 'content_filter', blocked), sseData('[DONE]'));
      writeEventStream(res, events);
      return;
    }
    if (mode === 'async' && seen === 4) {
      events.push(annotation(blocked, 'content_filter'), sseData('[DONE]'));
      writeEventStream(res, events);
      return;
    }
    if (mode !== 'default' && seen === 2) events.push(annotation({ ...SAFE, custom_blocklists: [{ filtered: false, id: 'svir' }] }));
  }
  events.push(chunk({}, 'stop', {}));
  if (mode !== 'default') {
    if (seen > 0 && mode === 'async-after-stop') events.push(annotation(blocked));
    else if (seen > 0 && mode === 'annotate') events.push(annotation({ protected_material_text: { detected: true, filtered: false } }));
    else events.push(annotation(SAFE));
  }
  if (wantsUsage(body)) events.push(usage);
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startAzureServer(options: AzureOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<AzureOptions> = {
    apiKey: 'azure-test-key',
    deployments: ['my-deployment'],
    filter: 'default',
    modelVersion: 'gpt-6-luna-2026-09-22',
    ...options,
  };
  const upstream = await startScriptedUpstream();
  const handle = (deploymentFromPath: string | undefined) => ({
    kind: 'handler' as const,
    handle: (_req: unknown, res: ServerResponse, recorded: RecordedRequest) => {
      if (recorded.headers['api-key'] !== settings.apiKey) {
        writeJson(res, 401, { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } });
        return;
      }
      const body = fakeChatBodySchema.safeParse(recorded.body);
      if (!body.success) {
        invalid(res, "Missing required parameter: 'messages'.", 'messages');
        return;
      }
      const deployment = deploymentFromPath ?? body.data.model ?? '';
      if (!settings.deployments.includes(deployment)) {
        writeJson(res, 404, { error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } });
        return;
      }
      if (deploymentFromPath !== undefined && !/[?&]api-version=/.test(recorded.path)) {
        writeJson(res, 404, { error: { code: '404', message: 'Resource not found' } });
        return;
      }
      answer(body.data, deployment, res, settings);
    },
  });
  upstream.route('POST', '/openai/v1/chat/completions', handle(undefined));
  for (const deployment of settings.deployments) {
    upstream.route('POST', `/openai/deployments/${deployment}/chat/completions`, handle(deployment));
  }
  // The legacy routes, on the same deployments, keys and api-version rule; the answer is the
  // shared fakes' (the completion stream opens with the prompt-filter report).
  const guarded = (deploymentFromPath: string | undefined, inner: ScriptedResponse): ScriptedResponse => ({
    kind: 'handler',
    handle: (req, res, recorded) => {
      if (recorded.headers['api-key'] !== settings.apiKey) {
        writeJson(res, 401, { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } });
        return;
      }
      const model = typeof recorded.body === 'object' && recorded.body !== null && 'model' in recorded.body ? recorded.body.model : undefined;
      const deployment = deploymentFromPath ?? (typeof model === 'string' ? model : '');
      if (!settings.deployments.includes(deployment) || (deploymentFromPath !== undefined && !/[?&]api-version=/.test(recorded.path))) {
        writeJson(res, 404, { error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } });
        return;
      }
      if (inner.kind === 'handler') return inner.handle(req, res, recorded);
    },
  });
  const SAFE_TEXT = { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } };
  const completionChunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: 'cmpl-AZ1',
    object: 'text_completion',
    created: 1_760_000_700,
    model: settings.modelVersion,
    choices,
    system_fingerprint: null,
    ...extra,
  });
  const completions = fakeCompletionHandler({
    suffix: 'fill',
    opening: [{ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: SAFE_TEXT }] }],
    chunk: (text, finish, _body, logprobs) => completionChunk([{ text, index: 0, logprobs, finish_reason: finish, content_filter_results: SAFE_TEXT }]),
    usageChunk: (usage) => completionChunk([], { usage }),
    refuse: (res) => invalid(res, "Missing required parameter: 'prompt'.", 'prompt'),
  });
  const embeddings = fakeEmbeddingHandler({
    base64: true,
    model: () => settings.modelVersion,
    refuse: (res) => invalid(res, "Missing required parameter: 'input'.", 'input'),
  });
  upstream.route('POST', '/openai/v1/completions', guarded(undefined, completions));
  upstream.route('POST', '/openai/v1/embeddings', guarded(undefined, embeddings));
  for (const deployment of settings.deployments) {
    upstream.route('POST', `/openai/deployments/${deployment}/completions`, guarded(deployment, completions));
    upstream.route('POST', `/openai/deployments/${deployment}/embeddings`, guarded(deployment, embeddings));
  }
  return upstream;
}
