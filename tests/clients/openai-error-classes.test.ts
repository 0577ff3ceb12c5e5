/**
 * Every error of svir's catalogue, provoked the way it happens in use, as the `openai` client
 * sees it: the client's error class for the status, and svir's one error shape (`message`,
 * `type`, `param`, `code`) in `error`, with `Retry-After` where svir keeps one. Upstream
 * failures are checked for streamed and non-streamed requests: a stream's headers wait for the
 * first chunk, so a failure before generation is a real HTTP status for both.
 */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors.js';
import type { ScriptedResponse } from '../fakes/scripted-upstream.js';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { contextOverflowResponse } from './harness/context-overflow-response.js';
import { startSvir } from '../faults/start-svir.js';
import { useClientRig } from './harness/use-client-rig.js';
import { closedPort } from '../helpers/closed-port.js';
import { apiFailureOf, type ApiError } from '../helpers/api-failure-of.js';

type ErrorClass = new (...args: never[]) => ApiError;

/** The body every svir error has: exactly these four keys. */
const svirError = z.strictObject({
  message: z.string().min(1),
  type: z.string().min(1),
  param: z.string().nullable(),
  code: z.string().nullable(),
});

const BODY_LIMIT = 64 * 1024;
/**
 * Short limits so the timeout cases end fast; every other answer here is immediate. The first
 * token's is 1 s: at 300 ms an immediate answer missed it on a machine running several suites
 * at once (lmstudio's context overflow answered 504).
 */
const FIRST_TOKEN_MS = 1_000;
const IDLE_MS = 300;
const OFFLINE_MODEL = 'offline-model';

function flavor(name: string): BackendFlavor {
  const found = BACKEND_FLAVORS.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no flavor ${name}`);
  return found;
}

const rig = useClientRig(async () => ({
  server: { bodyLimitBytes: BODY_LIMIT },
  backend: { timeouts: { firstTokenMs: FIRST_TOKEN_MS, idleMs: IDLE_MS } },
  extraBackends: [{ name: 'offline', type: 'llamacpp', url: `http://127.0.0.1:${await closedPort()}/v1`, models: [OFFLINE_MODEL] }],
}));
let client: OpenAI;

beforeAll(async () => {
  client = new OpenAI({ baseURL: rig.baseURL, apiKey: rig.apiKey, maxRetries: 0 });
});

function expectSvirError(err: ApiError, code: ErrorCode, errorClass: ErrorClass): void {
  expect(err).toBeInstanceOf(errorClass);
  expect(err.status).toBe(ERROR_CATALOGUE[code].status);
  const body = svirError.parse(err.error);
  expect(body.code).toBe(code);
  expect(body.type).toBe(ERROR_CATALOGUE[code].type);
  expect(err.code).toBe(code);
}

const hello = [{ role: 'user' as const, content: 'Hello.' }];

/** A chat request to a flavor, streamed or not, whose answer is scripted. */
function chat(target: BackendFlavor, stream: boolean, response: ScriptedResponse): Promise<unknown> {
  rig.scriptRaw(target, response);
  if (stream) {
    return client.chat.completions.create({ model: target.clientModel, messages: hello, stream: true }).then(async (s) => {
      for await (const chunk of s) void chunk;
    });
  }
  return client.chat.completions.create({ model: target.clientModel, messages: hello });
}

/**
 * One case per code a client can cause, each the title of its test below: the type makes a code
 * added to the catalogue without a case here a compile error. internal_error is svir failing on
 * its own, which no request causes on purpose.
 */
const CASES = {
  invalid_json: 'a body that is not JSON is a BadRequestError',
  invalid_request: 'n > 1 is a BadRequestError naming the field',
  unsupported_content: 'an image to mlx-lm is refused before it is sent',
  invalid_api_key: 'a wrong key is an AuthenticationError',
  model_not_found: 'an unknown model is a NotFoundError',
  not_found: 'an unknown route is a NotFoundError',
  response_not_found: 'retrieving a response svir does not hold is a NotFoundError',
  item_not_found: 'an item_reference svir cannot resolve is a NotFoundError naming it',
  method_not_allowed: 'GET on the chat route is an APIError with status 405',
  request_too_large: 'a body over the limit is an APIError with status 413',
  unsupported_media_type: 'a body that is not JSON by its content type is an APIError with status 415',
  backend_unavailable: 'a backend nothing listens on is an InternalServerError 503 with Retry-After',
  store_unavailable: 'retrieving a response while the shared Redis is unreachable is an InternalServerError 503, never a NotFoundError',
  context_length_exceeded: 'every server\'s wording is a BadRequestError that keeps "maximum context length"',
  content_filter: 'Azure blocking the prompt is a BadRequestError',
  rate_limit_exceeded: 'an upstream 429 is a RateLimitError with its Retry-After',
  upstream_auth_failed: 'the backend refusing svir\'s key is a 502, never a 401 to the client',
  upstream_error: 'an upstream 500 and an answer that is not a stream are InternalServerError 502',
  upstream_timeout: 'no answer or no first chunk in time is an InternalServerError 504',
} satisfies Record<Exclude<ErrorCode, 'internal_error'>, string>;

const title = (code: keyof typeof CASES): string => `${code}: ${CASES[code]}`;

describe('errors svir raises itself', () => {
  it(title('invalid_json'), async () => {
    const err = await apiFailureOf(client.post('/chat/completions', { body: '{"model": "x", "messages": [', headers: { 'content-type': 'application/json' } }));
    expectSvirError(err, 'invalid_json', OpenAI.BadRequestError);
  });

  it(title('invalid_request'), async () => {
    const err = await apiFailureOf(client.chat.completions.create({ model: flavor('openai').clientModel, messages: hello, n: 2 }));
    expectSvirError(err, 'invalid_request', OpenAI.BadRequestError);
    expect(err.message).toMatch(/\bn\b/);
  });

  it(title('unsupported_content'), async () => {
    const target = flavor('mlx-lm');
    const before = rig.upstreamOf(target).requestsTo('POST', target.chatPath).length;
    const err = await apiFailureOf(
      client.chat.completions.create({
        model: target.clientModel,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
      }),
    );
    expectSvirError(err, 'unsupported_content', OpenAI.BadRequestError);
    expect(rig.upstreamOf(target).requestsTo('POST', target.chatPath)).toHaveLength(before);
  });

  it(title('invalid_api_key'), async () => {
    const stranger = new OpenAI({ baseURL: rig.baseURL, apiKey: 'sk-wrong', maxRetries: 0 });
    const err = await apiFailureOf(stranger.chat.completions.create({ model: flavor('openai').clientModel, messages: hello }));
    expectSvirError(err, 'invalid_api_key', OpenAI.AuthenticationError);
  });

  it(title('model_not_found'), async () => {
    const err = await apiFailureOf(client.chat.completions.create({ model: 'no-such-model', messages: hello }));
    expectSvirError(err, 'model_not_found', OpenAI.NotFoundError);
    expect(err.message).toContain('no-such-model');
  });

  it(title('response_not_found'), async () => {
    const err = await apiFailureOf(client.responses.retrieve('resp_never_stored'));
    expectSvirError(err, 'response_not_found', OpenAI.NotFoundError);
    expect(err.message).toContain('resp_never_stored');
  });

  it(title('item_not_found'), async () => {
    const err = await apiFailureOf(
      client.responses.create({ model: flavor('openai').clientModel, input: [{ role: 'user', content: 'Hello.' }, { type: 'item_reference', id: 'rs_never_stored' }] }),
    );
    expectSvirError(err, 'item_not_found', OpenAI.NotFoundError);
    expect(err.message).toContain('rs_never_stored');
  });

  it(title('not_found'), async () => {
    const err = await apiFailureOf(client.get('/no-such-route'));
    expectSvirError(err, 'not_found', OpenAI.NotFoundError);
  });

  it(title('method_not_allowed'), async () => {
    const err = await apiFailureOf(client.get('/chat/completions'));
    expectSvirError(err, 'method_not_allowed', OpenAI.APIError);
  });

  it(title('request_too_large'), async () => {
    const err = await apiFailureOf(
      client.chat.completions.create({ model: flavor('openai').clientModel, messages: [{ role: 'user', content: 'x'.repeat(BODY_LIMIT * 2) }] }),
    );
    expectSvirError(err, 'request_too_large', OpenAI.APIError);
  });

  it(title('unsupported_media_type'), async () => {
    const err = await apiFailureOf(client.post('/chat/completions', { body: 'hello', headers: { 'content-type': 'text/plain' } }));
    expectSvirError(err, 'unsupported_media_type', OpenAI.APIError);
  });

  it(title('backend_unavailable'), async () => {
    const err = await apiFailureOf(client.chat.completions.create({ model: OFFLINE_MODEL, messages: hello }));
    expectSvirError(err, 'backend_unavailable', OpenAI.InternalServerError);
    expect(err.headers?.get('retry-after')).toMatch(/^\d+$/);
    expect(err.message).toContain('offline');
  });

  it(title('store_unavailable'), async () => {
    // A replica whose Redis (cluster.redis) nothing listens on.
    const replica = await startSvir(
      { backends: [{ name: 'b', type: 'openai', url: `http://127.0.0.1:${await closedPort()}/v1`, models: ['m'] }], cluster: { redis: `redis://127.0.0.1:${await closedPort()}` } },
      { logLevel: 'silent' },
    );
    try {
      const offline = new OpenAI({ baseURL: `${replica.url}/v1`, apiKey: 'unused', maxRetries: 0 });
      const err = await apiFailureOf(offline.responses.retrieve('resp_0123'));
      expectSvirError(err, 'store_unavailable', OpenAI.InternalServerError);
    } finally {
      await replica.close();
    }
  });
});

describe.each([false, true])('errors from the backend, stream %s', (stream) => {
  it(title('context_length_exceeded'), async () => {
    for (const target of BACKEND_FLAVORS) {
      const response = contextOverflowResponse(target.dialect);
      if (response === undefined) continue;
      const err = await apiFailureOf(chat(target, stream, response));
      expectSvirError(err, 'context_length_exceeded', OpenAI.BadRequestError);
      expect(err.message, target.name).toContain('maximum context length');
    }
  });

  it(title('content_filter'), async () => {
    const err = await apiFailureOf(
      chat(flavor('azure'), stream, {
        kind: 'body',
        status: 400,
        body: {
          error: {
            message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
            type: null,
            param: 'prompt',
            code: 'content_filter',
            status: 400,
            innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { jailbreak: { detected: true, filtered: true } } },
          },
        },
      }),
    );
    expectSvirError(err, 'content_filter', OpenAI.BadRequestError);
    expect(JSON.stringify(err.error)).not.toContain('innererror');
  });

  it(title('rate_limit_exceeded'), async () => {
    const err = await apiFailureOf(
      chat(flavor('openai'), stream, {
        kind: 'body',
        status: 429,
        headers: { 'retry-after': '7' },
        body: { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      }),
    );
    expectSvirError(err, 'rate_limit_exceeded', OpenAI.RateLimitError);
    expect(err.headers?.get('retry-after')).toBe('7');
  });

  it(title('upstream_auth_failed'), async () => {
    const target = flavor('azure');
    const err = await apiFailureOf(
      chat(target, stream, { kind: 'body', status: 401, body: { error: { code: '401', message: 'Access denied due to invalid subscription key.' } } }),
    );
    expectSvirError(err, 'upstream_auth_failed', OpenAI.InternalServerError);
    expect(err.message).not.toContain(target.apiKey ?? 'azure-upstream-key');
  });

  it(title('upstream_error'), async () => {
    const failed = await apiFailureOf(chat(flavor('vllm'), stream, { kind: 'body', status: 500, body: { error: { message: 'EngineCore died', type: 'InternalServerError', code: 500 } } }));
    expectSvirError(failed, 'upstream_error', OpenAI.InternalServerError);
    const notStream = await apiFailureOf(chat(flavor('lmstudio'), stream, { kind: 'body', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>proxy login</html>' }));
    expectSvirError(notStream, 'upstream_error', OpenAI.InternalServerError);
    expect(JSON.stringify(notStream.error)).not.toContain('<html>');
  });

  it(title('upstream_timeout'), async () => {
    // A server that never answers, and one that sends its headers and then nothing.
    const silent = await apiFailureOf(chat(flavor('llamacpp'), stream, { kind: 'handler', handle: () => undefined }));
    expectSvirError(silent, 'upstream_timeout', OpenAI.InternalServerError);
    const stalled = await apiFailureOf(chat(flavor('vllm'), stream, { kind: 'sse', pieces: [], finish: 'hang' }));
    expectSvirError(stalled, 'upstream_timeout', OpenAI.InternalServerError);
  });
});
