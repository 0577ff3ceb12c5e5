/**
 * End to end: a real svir (buildServer, listening on 127.0.0.1:0) in front of a fake upstream
 * that answers each error form of the reference, streamed and not, through the `openai` client.
 * The client must raise the class its status means (never AuthenticationError for a server's
 * refusal), with svir's one error shape, the backend named and no key anywhere: not in the
 * answers, not upstream, not in the logs.
 */
import type { FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_TYPES, configSchema, type BackendType } from '../../src/config/schema.js';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { buildServer } from '../../src/server.js';
import { startScriptedUpstream, type ScriptedResponse, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { UPSTREAM_ERROR_FORMS, type UpstreamErrorForm } from '../errors/upstream-error-forms.js';
import { apiFailureOf, type ApiError } from '../helpers/api-failure-of.js';

const SVIR_KEY = 'svir-config-key-5b1e77';
const SVIR_ENV_KEY = 'svir-env-key-90ac3d';
const BACKEND_KEY = 'backend-secret-key-c0ffee';

/** Chat path per backend type: Azure's v1 route lives under /openai/v1. */
function chatPath(type: BackendType): string {
  return type === 'azure' ? '/openai/v1/chat/completions' : '/v1/chat/completions';
}

const modelOf = (type: BackendType): string => `model-${type}`;

let upstream: ScriptedUpstream;
let app: FastifyInstance;
let baseURL: string;
let client: OpenAI;
const logLines: string[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  // One backend of every type, each named after its type, all on the same fake.
  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, apiKeys: [SVIR_KEY], logLevel: 'debug' },
    backends: BACKEND_TYPES.map((type) => ({
      name: type,
      type,
      url: type === 'azure' ? `${upstream.url}/openai/v1/` : upstream.baseUrl,
      apiKey: BACKEND_KEY,
      models: [modelOf(type)],
    })),
  });
  const secrets = [SVIR_KEY, SVIR_ENV_KEY, BACKEND_KEY];
  const logger = createLogger({ level: 'debug', secrets, destination: { write: (line: string) => void logLines.push(line) } });
  app = buildServer(config, { logger, env: { SVIR_API_KEYS: SVIR_ENV_KEY } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');
  baseURL = `http://127.0.0.1:${address.port}/v1`;
  client = new OpenAI({ baseURL, apiKey: SVIR_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await app.close();
  await upstream.close();
});

/** What the fake answers for a form: the status and body, or a stream whose first event fails. */
function responseFor(form: UpstreamErrorForm): ScriptedResponse {
  if (form.channel === 'stream') {
    const event = form.sseEvent === undefined ? '' : `event: ${form.sseEvent}\n`;
    return { kind: 'sse', pieces: [`${event}data: ${form.body}\n\n`] };
  }
  const html = form.body.trimStart().startsWith('<');
  const headers: Record<string, string> = { 'content-type': html ? 'text/html' : 'application/json' };
  if (form.retryAfter !== undefined) headers['retry-after'] = form.retryAfter;
  return { kind: 'body', status: form.status, headers, body: form.body };
}

function script(type: BackendType, ...responses: ScriptedResponse[]): void {
  upstream.route('POST', chatPath(type), ...responses);
}

const hello = [{ role: 'user' as const, content: 'Hello.' }];

function ask(type: BackendType, stream: boolean, apiClient: OpenAI = client): Promise<unknown> {
  if (!stream) return apiClient.chat.completions.create({ model: modelOf(type), messages: hello });
  return apiClient.chat.completions.create({ model: modelOf(type), messages: hello, stream: true }).then(async (chunks) => {
    for await (const chunk of chunks) void chunk;
  });
}

/** The client class each status svir answers with must raise. */
function classFor(status: number): new (...args: never[]) => ApiError {
  if (status === 400) return OpenAI.BadRequestError;
  if (status === 429) return OpenAI.RateLimitError;
  if (status >= 500) return OpenAI.InternalServerError;
  throw new Error(`no class expected for ${status}`);
}

const cases = UPSTREAM_ERROR_FORMS.flatMap((form) => {
  const type: BackendType = form.server === 'any' ? 'openai' : form.server;
  return [false, true].map((stream) => [`${form.name} (${type}, stream: ${stream})`, type, form, stream] as const);
});

describe('every upstream error form through svir and the openai client', () => {
  it.each(cases)('%s', async (_name, type, form, stream) => {
    script(type, responseFor(form));
    const err = await apiFailureOf(ask(type, stream));
    expect(err).toBeInstanceOf(classFor(form.expected.status));
    expect(err).not.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(form.expected.status);
    expect(err.error).toEqual({
      message: form.expected.message.replace('backend "b"', `backend "${type}"`),
      type: ERROR_CATALOGUE[form.expected.code as keyof typeof ERROR_CATALOGUE].type,
      param: form.expected.param,
      code: form.expected.code,
    });
    expect(err.code).toBe(form.expected.code);
    expect(err.headers?.get('x-svir-error-source')).toBe('upstream');
    expect(err.headers?.get('x-svir-backend')).toBe(type);
    expect(err.headers?.get('retry-after') ?? undefined).toBe(form.expected.retryAfter);
    expect(err.headers?.get('www-authenticate')).toBeNull();
  });
});

describe('a client never sees a 401 that was not about its own key', () => {
  it('svir\'s own missing or wrong key is an AuthenticationError with WWW-Authenticate', async () => {
    for (const apiKey of ['wrong-key', BACKEND_KEY]) {
      const err = await apiFailureOf(ask('openai', false, new OpenAI({ baseURL, apiKey, maxRetries: 0 })));
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(err.status).toBe(401);
      expect(err.code).toBe('invalid_api_key');
      expect(err.headers?.get('www-authenticate')).toBe('Bearer');
      expect(err.headers?.get('x-svir-error-source')).toBe('proxy');
    }
    const missing = await fetch(`${baseURL}/models`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'invalid_api_key', type: 'authentication_error' } });
  });

  it('the key from SVIR_API_KEYS is taken as well as the config\'s', async () => {
    script('openai', { kind: 'body', status: 500, body: { error: { message: 'boom' } } });
    const err = await apiFailureOf(ask('openai', false, new OpenAI({ baseURL, apiKey: SVIR_ENV_KEY, maxRetries: 0 })));
    expect(err.status).toBe(502);
  });

  it('health is answered without a key', async () => {
    expect((await fetch(`${baseURL.replace(/\/v1$/, '')}/healthz`)).status).toBe(200);
  });

  it.each([false, true])('a server that stalls its 401 body is answered 502 at once (stream: %s)', async (stream) => {
    script('vllm', { kind: 'body', status: 401, headers: { 'content-type': 'application/json' }, stall: true });
    const err = await apiFailureOf(ask('vllm', stream));
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err).not.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(502);
    expect(err.code).toBe('upstream_auth_failed');
    expect(err.message).toContain('backend "vllm"');
  });

  it('the client\'s key never goes upstream; each backend gets its own', () => {
    const chats = upstream.requests.filter((request) => request.method === 'POST');
    expect(chats.length).toBeGreaterThan(UPSTREAM_ERROR_FORMS.length);
    for (const request of chats) {
      const sent = JSON.stringify(request.headers) + request.rawBody;
      expect(sent).not.toContain(SVIR_KEY);
      expect(sent).not.toContain(SVIR_ENV_KEY);
      const auth = request.headers.authorization ?? request.headers['api-key'];
      expect(auth === `Bearer ${BACKEND_KEY}` || auth === BACKEND_KEY, `auth sent to ${request.path}`).toBe(true);
    }
  });
});

describe('answers that are not an event stream', () => {
  it.each([false, true])('a 200 JSON answer is an InternalServerError 502 upstream_error (stream: %s)', async (stream) => {
    script('mlx-lm', { kind: 'body', status: 200, body: { id: 'x', object: 'chat.completion', choices: [] } });
    const err = await apiFailureOf(ask('mlx-lm', stream));
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(502);
    expect(err.code).toBe('upstream_error');
    expect(err.message).toContain('backend "mlx-lm"');
    expect(err.headers?.get('x-svir-error-source')).toBe('upstream');
  });

  it('a backend nothing listens on is a 503 backend_unavailable naming it', async () => {
    const closed = await startScriptedUpstream();
    const port = new URL(closed.url).port;
    await closed.close();
    const config = configSchema.parse({
      server: { host: '127.0.0.1', port: 0 },
      backends: [{ name: 'gone', type: 'vllm', url: `http://127.0.0.1:${port}/v1`, models: ['m'] }],
    });
    const lone = buildServer(config, { logger: createLogger({ level: 'silent', secrets: [] }), env: {} });
    try {
      const response = await lone.inject({ method: 'POST', url: '/v1/chat/completions', payload: { model: 'm', messages: hello } });
      expect(response.statusCode).toBe(503);
      expect(response.headers['x-svir-error-source']).toBe('upstream');
      expect(response.headers['retry-after']).toBeDefined();
      expect(response.json()).toMatchObject({ error: { code: 'backend_unavailable', type: 'service_unavailable' } });
      expect(response.json().error.message).toContain('backend "gone"');
    } finally {
      await lone.close();
    }
  });
});

describe('errors after the stream started', () => {
  const contentChunk = JSON.stringify({
    id: 'up-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'm',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
  });

  it.each([
    ['llamacpp' as const, `data: ${contentChunk}\n\ndata: {"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}\n\n`, 'upstream_error', 'backend "llamacpp" failed inside the stream: The model produced output that does not match the expected peg-native format'],
    ['lmstudio' as const, `data: ${contentChunk}\n\nevent: error\ndata: {"error":{"message":"Model unloaded."},"message":"Model unloaded."}\n\n`, 'upstream_error', 'backend "lmstudio" failed inside the stream: Model unloaded.'],
  ])('%s: the text so far, then one error event the client raises as APIError', async (type, body, code, message) => {
    script(type, { kind: 'sse', pieces: [body] });
    const stream = await client.chat.completions.create({ model: modelOf(type), messages: hello, stream: true });
    let text = '';
    const err = await (async () => {
      try {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        return undefined;
      } catch (caught) {
        return caught;
      }
    })();
    expect(text).toBe('Hel');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    if (!(err instanceof OpenAI.APIError)) return;
    expect(err.error).toEqual({ message, type: 'upstream_error', param: null, code });
  });

  it('a raw stream ends with the error event and no [DONE]', async () => {
    script('vllm', { kind: 'sse', pieces: [`data: ${contentChunk}\n\n`, 'data: {"error":{"message":"EngineCore died"}}\n\n'] });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SVIR_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: modelOf('vllm'), messages: hello, stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = text.split('\n\n').filter((event) => event.length > 0);
    expect(events.at(-1)).toBe(
      'data: {"error":{"message":"backend \\"vllm\\" failed inside the stream: EngineCore died","type":"upstream_error","param":null,"code":"upstream_error"}}',
    );
    expect(text).not.toContain('[DONE]');
  });
});

describe('keys stay out of answers and logs', () => {
  it.each([400, 401, 500, 429])('an upstream %i that echoes the backend key', async (status) => {
    script('openai', {
      kind: 'body',
      status,
      body: { error: { message: `Incorrect API key provided: ${BACKEND_KEY} (Authorization: Bearer ${BACKEND_KEY})` } },
    });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SVIR_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: modelOf('openai'), messages: hello }),
    });
    expect(response.status).not.toBe(401);
    const answer = JSON.stringify([...response.headers]) + (await response.text());
    for (const key of [BACKEND_KEY, SVIR_KEY, SVIR_ENV_KEY]) expect(answer).not.toContain(key);
  });

  it('the logs of this whole run hold no configured key', () => {
    expect(logLines.length).toBeGreaterThan(UPSTREAM_ERROR_FORMS.length);
    const logs = logLines.join('');
    for (const key of [BACKEND_KEY, SVIR_KEY, SVIR_ENV_KEY]) expect(logs).not.toContain(key);
  });
});
