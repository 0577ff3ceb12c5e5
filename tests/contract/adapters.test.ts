/**
 * docs/contract.md#adapters, row by row, observed where it happens: what each fake server received
 * (body, headers, route) when svir's request arrived, and what the client got back, through the
 * built program. The fakes behave as docs/wire-protocol.md records each server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKED_WORD, startAzureServer, type AzureFilterMode } from '../fakes/azure-server.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { startMlxLmServer } from '../fakes/mlx-lm-server.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import { sse, startScriptedUpstream, type RecordedRequest, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import { expectContractStream, expectErrorShape } from './harness/contract-stream.js';
import { chat, type RawAnswer } from './harness/http.js';
import { startSvirProcess, type SvirProcess } from './harness/run-svir.js';

type Json = Record<string, unknown>;
const FILTER_MODES: AzureFilterMode[] = ['default', 'async', 'async-after-stop', 'annotate'];

let svir: SvirProcess;
let open: ScriptedUpstream;
let plain: ScriptedUpstream;
let lms: ScriptedUpstream;
let lmsSchema: ScriptedUpstream;
let llama: ScriptedUpstream;
let llamaVision: ScriptedUpstream;
let vllm: ScriptedUpstream;
let mlxlm: ScriptedUpstream;
let mlxvlm: ScriptedUpstream;
let ollama: ScriptedUpstream;
const azures = new Map<string, ScriptedUpstream>();

const KEYS = { plain: 'sk-plain-0001', lms: 'lms-key-0002', llama: 'llama-key-0003', vllm: 'vllm-key-0004', azure: 'azure-key-0005' };

beforeAll(async () => {
  [open, plain] = await Promise.all([startScriptedUpstream(), startScriptedUpstream()]);
  plain.models(['gpt-x']);
  open.models(['think-model']);
  lms = await startLmStudioServer({ loadedModel: 'qwen3.8-27b' });
  lmsSchema = await startLmStudioServer({ loadedModel: 'qwen-schema', schemaReasoningAlways: true });
  llama = await startLlamaCppServer({ modelPath: '/models/glimmer-Q4_K_M.gguf' });
  llamaVision = await startLlamaCppServer({ mmproj: true, modelPath: '/models/glimmer-vision.gguf' });
  vllm = await startVllmServer({ servedModelName: 'qwen3.8' });
  mlxlm = await startMlxLmServer({ modelPath: '/Users/me/mlx-lm/Qwen' });
  mlxvlm = await startMlxVlmServer({ modelPath: '/Users/me/mlx-vlm/Qwen' });
  ollama = await startOllamaServer();
  for (const mode of FILTER_MODES) azures.set(mode, await startAzureServer({ apiKey: KEYS.azure, deployments: [`dep-${mode}`], filter: mode }));
  const azureBackends = FILTER_MODES.map(
    (mode, i) =>
      // The resource URL as people write it: bare, with a slash, or as Azure's v1 base URL.
      `  - {name: az-${mode}, type: azure, url: "${azures.get(mode)?.url ?? ''}${['', '/', '/openai/v1/', '/openai'][i] ?? ''}", apiKey: "\${AZ_KEY}", models: [dep-${mode}]${mode === 'annotate' ? ', apiVersion: "2025-04-01-preview"' : ''}}`,
  );
  const config = [
    'server: {port: 0}',
    'backends:',
    `  - {name: plain, type: openai, url: "${plain.url}/v1", apiKey: "${KEYS.plain}"}`,
    `  - {name: opener, type: openai, url: "${open.url}", reasoningTags: open}`,
    `  - {name: lms, type: lmstudio, url: "${lms.url}/v1/", apiKey: "${KEYS.lms}"}`,
    `  - {name: lms-schema, type: lmstudio, url: "${lmsSchema.url}/v1/"}`,
    // Named in config: svir sends `glimmer`, the server answers with its path.
    `  - {name: llama, type: llamacpp, url: "${llama.url}", apiKey: "${KEYS.llama}", models: [glimmer]}`,
    `  - {name: llama-vision, type: llamacpp, url: "${llamaVision.url}/"}`,
    `  - {name: vllm, type: vllm, url: "${vllm.url}/v1", apiKey: "${KEYS.vllm}"}`,
    `  - {name: mlxlm, type: mlx-lm, url: "${mlxlm.url}"}`,
    `  - {name: mlxvlm, type: mlx-vlm, url: "${mlxvlm.url}/v1"}`,
    `  - {name: ollama, type: ollama, url: "${ollama.url}/v1"}`,
    ...azureBackends,
  ].join('\n');
  svir = await startSvirProcess({ config, env: { AZ_KEY: KEYS.azure } });
});

afterAll(async () => {
  await svir?.stop();
  await Promise.all([open, plain, lms, lmsSchema, llama, llamaVision, vllm, mlxlm, mlxvlm, ollama, ...azures.values()].map((s) => s?.close()));
});

const user = (content: unknown): Json => ({ role: 'user', content });
const lockerTool = { type: 'function', function: { name: 'open_locker', description: 'Opens a locker', parameters: { type: 'object', properties: { number: { type: 'integer' } } } } };
const otherTool = { type: 'function', function: { name: 'say_hello', parameters: { type: 'object' } } };
const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };

interface Target {
  backend: string;
  model: string;
  server: () => ScriptedUpstream;
  path: string;
  /** The key the backend reads sent-back reasoning from; null: none is sent. */
  reasoningKey: string | null;
}

const TARGETS: Target[] = [
  { backend: 'plain', model: 'gpt-x', server: () => plain, path: '/v1/chat/completions', reasoningKey: 'reasoning_content' },
  { backend: 'lms', model: 'qwen3.8-27b', server: () => lms, path: '/v1/chat/completions', reasoningKey: 'reasoning_content' },
  { backend: 'llama', model: 'glimmer', server: () => llama, path: '/v1/chat/completions', reasoningKey: 'reasoning_content' },
  { backend: 'vllm', model: 'qwen3.8', server: () => vllm, path: '/v1/chat/completions', reasoningKey: 'reasoning' },
  { backend: 'mlxlm', model: '/Users/me/mlx-lm/Qwen', server: () => mlxlm, path: '/v1/chat/completions', reasoningKey: 'reasoning' },
  { backend: 'mlxvlm', model: '/Users/me/mlx-vlm/Qwen', server: () => mlxvlm, path: '/v1/chat/completions', reasoningKey: 'reasoning_content' },
  { backend: 'az-default', model: 'dep-default', server: () => azures.get('default') as ScriptedUpstream, path: '/openai/v1/chat/completions', reasoningKey: null },
  { backend: 'ollama', model: 'qwen3:8b', server: () => ollama, path: '/v1/chat/completions', reasoningKey: 'reasoning' },
];

/** Sends a request and returns the client's answer and what the server received. */
async function through(target: Target, body: Json, headers?: Record<string, string>): Promise<{ answer: RawAnswer; sent: RecordedRequest | undefined }> {
  const server = target.server();
  const before = server.requests.filter((r) => r.method === 'POST').length;
  const answer = await chat(svir.url, { model: target.model, stream: true, ...body }, headers);
  const posts = server.requests.filter((r) => r.method === 'POST');
  return { answer, sent: posts.length > before ? posts.at(-1) : undefined };
}

function sentBody(sent: RecordedRequest | undefined): Json {
  expect(sent, 'the request reached the server').toBeDefined();
  return (sent?.body ?? {}) as Json;
}

function scriptPlain(server: ScriptedUpstream, text = 'OK.'): void {
  const ck = (delta: Json, finish: string | null = null): Json => ({ id: 'p', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: finish }] });
  server.chat({ kind: 'sse', pieces: [sse(ck({ role: 'assistant', content: text }), ck({}, 'stop'), '[DONE]')] });
}

describe('docs/contract.md#adapters all backends', () => {
  for (const target of TARGETS) {
    describe(target.backend, () => {
      it('Content-Length, never chunked; stream: true; no client Authorization or other client header', async () => {
        if (target.backend === 'plain') scriptPlain(plain);
        const { answer, sent } = await through(target, { messages: [user('say hello')], stream: false }, { authorization: 'Bearer client-key-xyz', 'x-client-secret': 'nope', cookie: 'a=b' });
        expect(answer.status, answer.text).toBe(200);
        const headers = sent?.headers ?? {};
        expect(headers['transfer-encoding']).toBeUndefined();
        expect(headers['content-length']).toBe(String(Buffer.byteLength(sent?.rawBody ?? '')));
        expect(JSON.stringify(headers)).not.toContain('client-key-xyz');
        expect(headers['x-client-secret']).toBeUndefined();
        expect(headers.cookie).toBeUndefined();
        expect(sentBody(sent).stream).toBe(true);
      });

      it('text-only array content goes as a string', async () => {
        if (target.backend === 'plain') scriptPlain(plain);
        const { answer, sent } = await through(target, { messages: [user([{ type: 'text', text: 'say' }, { type: 'text', text: 'hello' }])] });
        expect(answer.status, answer.text).toBe(200);
        const messages = sentBody(sent).messages as Json[];
        expect(typeof messages[0]?.content).toBe('string');
        expect(messages[0]?.content).toContain('say');
        expect(messages[0]?.content).toContain('hello');
      });

      it('tool_choice without tools is dropped', async () => {
        if (target.backend === 'plain') scriptPlain(plain);
        const { answer, sent } = await through(target, { messages: [user('say hello')], tool_choice: 'required' });
        expect(answer.status, answer.text).toBe(200);
        expect(sentBody(sent)).not.toHaveProperty('tool_choice');
        expect(answer.headers.get('x-svir-changes')).toMatch(/tool_choice/);
      });

      it(`reasoning sent back ${target.reasoningKey === null ? 'is not sent' : `under ${target.reasoningKey}`}`, async () => {
        if (target.backend === 'plain') scriptPlain(plain);
        const messages = [user('count'), { role: 'assistant', content: 'One.', reasoning_content: 'I count.' }, user('say hello')];
        const { answer, sent } = await through(target, { messages });
        expect(answer.status, answer.text).toBe(200);
        const assistant = (sentBody(sent).messages as Json[])[1] ?? {};
        for (const key of ['reasoning_content', 'reasoning']) {
          if (key === target.reasoningKey) expect(assistant[key]).toBe('I count.');
          else expect(assistant).not.toHaveProperty(key);
        }
      });
    });
  }

  it('reasoning is not sent back at all to a think-tag backend (reasoningTags: open)', async () => {
    scriptPlain(open);
    const target: Target = { backend: 'opener', model: 'think-model', server: () => open, path: '/v1/chat/completions', reasoningKey: null };
    const { answer, sent } = await through(target, { messages: [user('count'), { role: 'assistant', content: 'One.', reasoning_content: 'I count.' }, user('more')] });
    expect(answer.status).toBe(200);
    const assistant = (sentBody(sent).messages as Json[])[1] ?? {};
    expect(assistant).not.toHaveProperty('reasoning_content');
    expect(assistant).not.toHaveProperty('reasoning');
    expect(JSON.stringify(sentBody(sent))).not.toContain('I count.');
  });

  it('each backend receives its own key, as Bearer (Azure: api-key, no Authorization)', async () => {
    for (const [target, key] of [
      [TARGETS[0], KEYS.plain],
      [TARGETS[1], KEYS.lms],
      [TARGETS[2], KEYS.llama],
      [TARGETS[3], KEYS.vllm],
    ] as const) {
      if (target === undefined) continue;
      if (target.backend === 'plain') scriptPlain(plain);
      const { sent } = await through(target, { messages: [user('say hello')] });
      expect(sent?.headers.authorization).toBe(`Bearer ${key}`);
    }
    const { sent } = await through(TARGETS[6] as Target, { messages: [user('say hello')] });
    expect(sent?.headers['api-key']).toBe(KEYS.azure);
    expect(sent?.headers.authorization).toBeUndefined();
  });

  for (const [status, field, message] of [
    [400, 'stream_options', 'Unrecognized request argument supplied: stream_options'],
    [422, 'reasoning_effort', "Extra inputs are not permitted: body.reasoning_effort"],
  ] as const) {
    it(`on ${status} naming ${field}: one retry without it, said in the changes header`, async () => {
      const ck = (delta: Json, finish: string | null = null): Json => ({ id: 'p', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: finish }] });
      plain.chat({ kind: 'body', status, body: { error: { message, type: 'invalid_request_error' } } }, { kind: 'sse', pieces: [sse(ck({ role: 'assistant', content: 'fine' }), ck({}, 'stop'), '[DONE]')] });
      const before = plain.requestsTo('POST', '/v1/chat/completions').length;
      const answer = await chat(svir.url, { model: 'gpt-x', messages: [user('hi')], stream: true, reasoning_effort: 'low', stream_options: { include_usage: true } });
      expect(answer.status).toBe(200);
      const posts = plain.requestsTo('POST', '/v1/chat/completions').slice(before);
      expect(posts).toHaveLength(2);
      expect(posts[0]?.body).toHaveProperty(field);
      expect(posts[1]?.body).not.toHaveProperty(field);
      expect(answer.headers.get('x-svir-changes')).toMatch(new RegExp(field));
      expect(expectContractStream(answer.text, { model: 'gpt-x', includeUsage: true }).content).toBe('fine');
    });
  }

  it('a retry is made once: a second refusal is the client\'s error', async () => {
    const refusal = { kind: 'body' as const, status: 400, body: { error: { message: 'Unrecognized request argument supplied: stream_options' } } };
    plain.chat(refusal, refusal, refusal);
    const before = plain.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await chat(svir.url, { model: 'gpt-x', messages: [user('hi')], stream: true });
    expect(answer.status).toBe(400);
    expectErrorShape(answer.json);
    expect(plain.requestsTo('POST', '/v1/chat/completions').length - before).toBe(2);
  });
});

describe('docs/contract.md#adapters openai: as sent, as received cleaned', () => {
  it('every field the client sent reaches the server unchanged', async () => {
    scriptPlain(plain);
    const body = {
      model: 'gpt-x',
      messages: [{ role: 'system', content: 'be brief' }, user('hi')],
      temperature: 0.3,
      top_p: 0.9,
      seed: 7,
      max_tokens: 50,
      stop: ['\n\n'],
      user: 'u-1',
      metadata: { a: 'b' },
      // Fields svir's schema does not name pass through too (issue 2).
      top_k: 40,
      min_p: 0.05,
      x_vendor_option: { nested: [1, 'two', null, { three: true }] },
      tools: [lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      stream: true,
    };
    const answer = await chat(svir.url, body);
    expect(answer.status).toBe(200);
    const sent = plain.requestsTo('POST', '/v1/chat/completions').at(-1)?.body as Json;
    const { stream: _s, ...rest } = body;
    expect(sent).toMatchObject(rest);
    expect(sent.stream).toBe(true);
    expect(answer.headers.get('x-svir-changes')).toBeNull();
  });
});

describe('docs/contract.md#adapters lmstudio', () => {
  const lmsTarget = (): Target => TARGETS[1] as Target;

  it('named tool_choice → required with only that tool; the call comes back', async () => {
    const { answer, sent } = await through(lmsTarget(), { messages: [user('open the locker')], tools: [otherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    expect(answer.status, answer.text).toBe(200);
    const body = sentBody(sent);
    expect(body.tool_choice).toBe('required');
    expect((body.tools as Json[]).map((t) => (t.function as Json).name)).toEqual(['open_locker']);
    expect(answer.headers.get('x-svir-changes')).toMatch(/tool_choice/);
    const result = expectContractStream(answer.text, { model: 'qwen3.8-27b' });
    expect(result.calls.map((c) => c.name)).toEqual(['open_locker']);
  });

  it('json_object → json_schema of any object, with reasoning off; the JSON arrives as content', async () => {
    const { answer, sent } = await through(lmsTarget(), { messages: [user('give me json')], response_format: { type: 'json_object' } });
    expect(answer.status, answer.text).toBe(200);
    const body = sentBody(sent);
    expect((body.response_format as Json).type).toBe('json_schema');
    expect(body.reasoning_effort).toBe('none');
    const result = expectContractStream(answer.text, { model: 'qwen3.8-27b' });
    expect(JSON.parse(result.content)).toEqual({ number: 4 });
    expect(result.reasoning).toBe('');
  });

  it('reasoning held to a schema is read as content', async () => {
    const answer = await chat(svir.url, { model: 'qwen-schema', stream: true, messages: [user('json')], response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' } } } });
    const result = expectContractStream(answer.text, { model: 'qwen-schema' });
    expect(JSON.parse(result.content)).toEqual({ number: 4 });
    expect(result.reasoning).toBe('');
  });

  it('an unknown model is svir\'s 404; LM Studio is never asked to answer it with another', async () => {
    const before = lms.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await chat(svir.url, { model: 'not-loaded-model', stream: true, messages: [user('hi')] });
    expect(answer.status).toBe(404);
    expectErrorShape(answer.json, 'model_not_found');
    expect(lms.requestsTo('POST', '/v1/chat/completions').length).toBe(before);
  });

  it('reasoning then "\\n\\n" then the answer, clean: the separator is not answer text', async () => {
    const { answer } = await through(lmsTarget(), { messages: [user('count')], stream_options: { include_usage: true } });
    const result = expectContractStream(answer.text, { model: 'qwen3.8-27b', includeUsage: true });
    expect(result.reasoning.length).toBeGreaterThan(0);
    expect(result.content).toBe('One, two, three, four, five.');
    expect(result.usage).toBeDefined();
  });
});

describe('docs/contract.md#adapters llamacpp', () => {
  const llamaTarget = (): Target => TARGETS[2] as Target;

  it('named → required with only that tool', async () => {
    const { answer, sent } = await through(llamaTarget(), { messages: [user('say hello')], tools: [otherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    const body = sentBody(sent);
    expect(body.tool_choice).toBe('required');
    expect((body.tools as Json[]).map((t) => (t.function as Json).name)).toEqual(['open_locker']);
    const result = expectContractStream(answer.text, { model: 'glimmer' });
    expect(result.calls.map((c) => c.name)).toEqual(['open_locker']);
  });

  it('none → no tools (its parser would fail the stream)', async () => {
    const { answer, sent } = await through(llamaTarget(), { messages: [user('open the locker')], tools: [lockerTool], tool_choice: 'none' });
    const body = sentBody(sent);
    expect(body).not.toHaveProperty('tools');
    expect(body.tool_choice === undefined || body.tool_choice === 'none').toBe(true);
    expect(expectContractStream(answer.text, { model: 'glimmer' }).calls).toEqual([]);
  });

  it('the model path in its chunks → the client\'s name', async () => {
    const { answer } = await through(llamaTarget(), { messages: [user('say hello')] });
    expect(answer.text).not.toContain('/models/glimmer');
    expect(expectContractStream(answer.text, { model: 'glimmer' }).content).toBe('Hello!');
  });

  it('no image projector (its model list says input_modalities [text]) → 400 unsupported_content before sending', async () => {
    // The config says nothing about vision: what llama.cpp lists is what svir knows.
    const { answer, sent } = await through(llamaTarget(), { messages: [user([{ type: 'text', text: 'what is this' }, image])] });
    expect(answer.status).toBe(400);
    expectErrorShape(answer.json, 'unsupported_content');
    expect(sent, 'nothing was sent to the server').toBeUndefined();
  });

  it('with the projector (input_modalities [text, image]) the image is sent', async () => {
    const answer = await chat(svir.url, { model: '/models/glimmer-vision.gguf', stream: true, messages: [user([{ type: 'text', text: 'say hello' }, image])] });
    expect(answer.status, answer.text).toBe(200);
    const sent = llamaVision.requestsTo('POST', '/v1/chat/completions').at(-1)?.body as Json;
    expect(JSON.stringify(sent)).toContain('data:image/png;base64');
  });
});

describe('docs/contract.md#adapters vllm', () => {
  const vllmTarget = (): Target => TARGETS[3] as Target;

  it('an effort its template rejects: one retry with a supported one', async () => {
    const before = vllm.requestsTo('POST', '/v1/chat/completions').length;
    const { answer } = await through(vllmTarget(), { messages: [user('count')], reasoning_effort: 'high' });
    expect(answer.status, answer.text).toBe(200);
    const posts = vllm.requestsTo('POST', '/v1/chat/completions').slice(before);
    expect(posts.map((p) => (p.body as Json).reasoning_effort)).toEqual(['high', 'xhigh']);
    expect(answer.headers.get('x-svir-changes')).toMatch(/effort/);
  });

  it('`reasoning` → reasoning_content; token ids dropped; usage with reasoning tokens', async () => {
    const { answer } = await through(vllmTarget(), { messages: [user('count')], stream_options: { include_usage: true } });
    expect(answer.text).not.toContain('token_ids');
    expect(answer.text).not.toContain('prompt_text');
    const result = expectContractStream(answer.text, { model: 'qwen3.8', includeUsage: true });
    expect(result.reasoning.length).toBeGreaterThan(0);
    expect(result.content).toContain('One, two');
  });

  it('a named call finished with stop → tool_calls', async () => {
    const { answer } = await through(vllmTarget(), { messages: [user('say hello')], tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    const result = expectContractStream(answer.text, { model: 'qwen3.8' });
    expect(result.calls.map((c) => c.name)).toEqual(['open_locker']);
    expect(result.finish).toBe('tool_calls');
  });
});

describe('docs/contract.md#adapters mlx-lm', () => {
  const mlxTarget = (): Target => TARGETS[4] as Target;

  it('none → no tools', async () => {
    const { answer, sent } = await through(mlxTarget(), { messages: [user('open the locker')], tools: [lockerTool], tool_choice: 'none' });
    expect(sentBody(sent)).not.toHaveProperty('tools');
    expect(expectContractStream(answer.text, { model: '/Users/me/mlx-lm/Qwen' }).calls).toEqual([]);
  });

  it('named → only that tool', async () => {
    const { answer, sent } = await through(mlxTarget(), { messages: [user('open the locker')], tools: [otherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    const body = sentBody(sent);
    expect((body.tools as Json[]).map((t) => (t.function as Json).name)).toEqual(['open_locker']);
    expect(expectContractStream(answer.text, { model: '/Users/me/mlx-lm/Qwen' }).calls.map((c) => c.name)).toEqual(['open_locker']);
  });

  it('effort → chat_template_kwargs; none turns reasoning off', async () => {
    const { answer, sent } = await through(mlxTarget(), { messages: [user('count')], reasoning_effort: 'none' });
    expect(sentBody(sent).chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(expectContractStream(answer.text, { model: '/Users/me/mlx-lm/Qwen' }).reasoning).toBe('');
  });

  it('images → 400 before sending', async () => {
    const { answer, sent } = await through(mlxTarget(), { messages: [user([{ type: 'text', text: 'what' }, image])] });
    expect(answer.status).toBe(400);
    expectErrorShape(answer.json, 'unsupported_content');
    expect(sent).toBeUndefined();
  });

  it('reasoning, role on every delta, keepalive comments, usage object: clean', async () => {
    const { answer } = await through(mlxTarget(), { messages: [user('count')], stream_options: { include_usage: true } });
    const result = expectContractStream(answer.text, { model: '/Users/me/mlx-lm/Qwen', includeUsage: true });
    expect(result.reasoning.length).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 3 } });
  });
});

describe('docs/contract.md#adapters mlx-vlm', () => {
  it('reasoning twice in a delta → once; null keys, logprobs: null, usage: null and timings never reach the client', async () => {
    const { answer } = await through(TARGETS[5] as Target, { messages: [user('count')], reasoning_effort: 'low', stream_options: { include_usage: true } });
    const result = expectContractStream(answer.text, { model: '/Users/me/mlx-vlm/Qwen', includeUsage: true });
    expect(result.reasoning).toBe('The user wants me to count from one to five.');
    expect(answer.text).not.toContain('timings');
  });
});

describe('docs/contract.md#adapters ollama', () => {
  const ollamaTarget = (): Target => TARGETS[7] as Target;

  it('every call at index: 0 → separate calls, each with its id, whole name and arguments', async () => {
    const { answer } = await through(ollamaTarget(), { messages: [user('Open lockers 4 and 7')], tools: [lockerTool] });
    const result = expectContractStream(answer.text, { model: 'qwen3:8b' });
    expect(result.calls.map((call) => [call.name, call.arguments])).toEqual([
      ['open_locker', '{"number":4}'],
      ['open_locker', '{"number":7}'],
    ]);
    expect(new Set(result.calls.map((call) => call.id)).size).toBe(2);
  });

  it('`reasoning` → reasoning_content; its "content": "" beside it is no content', async () => {
    const { answer } = await through(ollamaTarget(), { messages: [user('count')], stream_options: { include_usage: true } });
    const result = expectContractStream(answer.text, { model: 'qwen3:8b', includeUsage: true });
    expect(result.reasoning).toBe('The user wants me to count from one to five.');
    expect(result.content).toBe('One, two, three, four, five.');
  });
});

describe('docs/contract.md#adapters azure', () => {
  it('the /openai/v1 route with the deployment as model; the deployments route with api-version when configured', async () => {
    const { sent } = await through(TARGETS[6] as Target, { messages: [user('say hello')] });
    expect(sent?.path).toBe('/openai/v1/chat/completions');
    expect(sentBody(sent).model).toBe('dep-default');
    const annotate = azures.get('annotate') as ScriptedUpstream;
    const answer = await chat(svir.url, { model: 'dep-annotate', stream: true, messages: [user('say hello')] });
    expect(answer.status, answer.text).toBe(200);
    const viaDeployment = annotate.requests.at(-1);
    expect(viaDeployment?.path).toMatch(/^\/openai\/deployments\/dep-annotate\/chat\/completions\?api-version=2025-04-01-preview$/);
    expect(viaDeployment?.headers['api-key']).toBe(KEYS.azure);
  });

  it('json_object without the word JSON: svir adds it; the client\'s own messages are untouched', async () => {
    const { answer, sent } = await through(TARGETS[6] as Target, { messages: [user('give me the locker number')], response_format: { type: 'json_object' } });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.stringify(sentBody(sent).messages)).toMatch(/json/i);
    expect(answer.headers.get('x-svir-changes')).toMatch(/JSON|json/);
  });

  it('the prompt-filter chunk, annotations, obfuscation and the model version never reach the client', async () => {
    for (const mode of FILTER_MODES) {
      const server = azures.get(mode) as ScriptedUpstream;
      const before = server.requests.length;
      const answer = await chat(svir.url, { model: `dep-${mode}`, stream: true, messages: [user('count')], stream_options: { include_usage: true } });
      expect(answer.text).not.toMatch(/prompt_filter_results|content_filter_results|content_filter_offsets|obfuscation|gpt-6-luna|service_tier/);
      const result = expectContractStream(answer.text, { model: `dep-${mode}`, includeUsage: true });
      expect(result.finish).toBe('stop');
      expect(result.content).toBe('One, two, three, four, five.');
      // Every URL form reached one of Azure's two routes.
      expect(server.requests.slice(before).map((r) => r.path.replace(/\?.*$/, ''))).toEqual([mode === 'annotate' ? `/openai/deployments/dep-${mode}/chat/completions` : '/openai/v1/chat/completions']);
    }
  });

  for (const mode of FILTER_MODES) {
    const want = mode === 'annotate' ? 'stop' : 'content_filter';
    it(`filter mode ${mode}: a blocked answer finishes ${want}`, async () => {
      const answer = await chat(svir.url, { model: `dep-${mode}`, stream: true, messages: [user(`say ${BLOCKED_WORD}`)], stream_options: { include_usage: true } });
      expect(answer.status).toBe(200);
      const result = expectContractStream(answer.text, { model: `dep-${mode}`, includeUsage: true });
      expect(result.finish).toBe(want);
    });
  }
});
