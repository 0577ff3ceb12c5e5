/**
 * svir's own keys guard every route but the health probes: every registered route (read from
 * the router itself, so a route added later is covered), every method, unknown paths and path
 * tricks, with no key, a wrong key and near-misses of a right one. A right key passes, from the
 * config or from SVIR_API_KEYS.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helloScript, startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

const CONFIG_KEY = 'svir-config-key-4f1c2a9e7b';
const ENV_KEY = 'svir-env-key-8d3b6e0c15';
/** Public: the health probes, and the live page's script and style (no data; docs/live-page.md). */
const PUBLIC = ['/healthz', '/readyz', '/svir/page/app.js', '/svir/page/app.css'];

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  svir = await startSvir(
    { server: { apiKeys: [CONFIG_KEY] }, backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'] }] },
    { env: { SVIR_API_KEYS: `${ENV_KEY}, ` } },
  );
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

/** Every route the router knows, as [method, path] with wildcards filled in. */
function registeredRoutes(): Array<[string, string]> {
  const routes: Array<[string, string]> = [];
  const stack: string[] = [];
  for (const line of svir.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    const segment = match[2] ?? '';
    stack.length = depth;
    const parent = stack.at(-1) ?? '';
    // `/` is a route itself since the live page: its children hang under it without a slash.
    const path = segment.startsWith('/') || parent.endsWith('/') ? `${parent}${segment}` : `${parent}/${segment}`;
    stack.push(path);
    for (const method of (match[3] ?? '').split(', ')) routes.push([method, path.replace(/\*/g, 'some-model')]);
  }
  return routes;
}

async function call(method: string, path: string, authorization?: string): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const response = await request(`${svir.url}${path}`, {
    method: method as 'GET',
    headers: {
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...(authorization === undefined ? {} : { authorization }),
    },
    ...(hasBody ? { body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) } : {}),
  });
  // The live page's feed never ends by itself: its status and headers are the answer.
  if (String(response.headers['content-type']).startsWith('text/event-stream')) {
    response.body.destroy();
    return { status: response.statusCode, text: '', headers: response.headers };
  }
  return { status: response.statusCode, text: await response.body.text(), headers: response.headers };
}

function expect401(answer: { status: number; text: string; headers: Record<string, unknown> }, what: string): void {
  expect(answer.status, what).toBe(401);
  expect(answer.headers['www-authenticate'], what).toBe('Bearer');
  if (answer.text === '') return;
  // The Messages routes answer in Anthropic's shape (docs/messages.md), every other route in svir's.
  if (/ \/v1\/messages(\/|\?|$)/.test(what)) expect(JSON.parse(answer.text), what).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  else expect(readErrorBody(answer.text)?.code, what).toBe('invalid_api_key');
}

describe('routes without a key', () => {
  it('finds the routes svir registers', () => {
    const paths = new Set(registeredRoutes().map(([, path]) => path));
    for (const path of ['/', '/healthz', '/readyz', '/metrics', '/v1/models', '/v1/models/some-model', '/v1/chat/completions', '/svir/api/state', '/svir/api/events']) {
      expect(paths).toContain(path);
    }
  });

  it('answers 401 on every registered route but health, on every method it takes', async () => {
    for (const [method, path] of registeredRoutes()) {
      const answer = await call(method, path);
      if (PUBLIC.includes(path)) expect(answer.status, `${method} ${path}`).toBeLessThan(400);
      else expect401(answer, `${method} ${path}`);
    }
  });

  it('answers 401 on unknown paths, other methods and path tricks, so the route table cannot be probed', async () => {
    const paths = [
      '/',
      '/v1',
      '/v1/completions',
      '/v1/embeddings',
      '/admin',
      '/HEALTHZ',
      '/healthz/',
      '/healthz/../v1/models',
      '/healthz%2f..%2fv1%2fmodels',
      '/healthz;/v1/models',
      '//v1/models',
      '/v1/models?x=/healthz',
      '/./v1/models',
      '/v1/chat/completions/',
      '/metrics/',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        expect401(await call(method, path), `${method} ${path}`);
      }
    }
  });

  it('lets health probes through with any query, and nothing else in them', async () => {
    for (const path of ['/healthz', '/readyz', '/healthz?full=1']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBeLessThan(400);
      expect(answer.text).not.toContain(CONFIG_KEY);
    }
  });
});

describe('keys', () => {
  it.each([
    ['no scheme', CONFIG_KEY],
    ['Basic', `Basic ${Buffer.from(`user:${CONFIG_KEY}`).toString('base64')}`],
    ['a prefix of the key', `Bearer ${CONFIG_KEY.slice(0, -1)}`],
    ['the key and one more character', `Bearer ${CONFIG_KEY}x`],
    ['the key in another case', `Bearer ${CONFIG_KEY.toUpperCase()}`],
    ['two keys', `Bearer ${CONFIG_KEY} ${ENV_KEY}`],
    ['the keys joined', `Bearer ${CONFIG_KEY},${ENV_KEY}`],
    ['an empty bearer', 'Bearer '],
    ['a very long token', `Bearer ${'k'.repeat(8 * 1024)}`],
  ])('refuses %s', async (_name, authorization) => {
    const answer = await call('GET', '/v1/models', authorization);
    expect401(answer, authorization.slice(0, 40));
    expect(answer.text).not.toContain(CONFIG_KEY);
  });

  it("takes the key as x-api-key (Anthropic's clients), Authorization first when both come", async () => {
    const get = async (headers: Record<string, string>) => (await request(`${svir.url}/v1/models`, { headers })).statusCode;
    expect(await get({ 'x-api-key': CONFIG_KEY })).toBe(200);
    expect(await get({ 'x-api-key': ENV_KEY })).toBe(200);
    expect(await get({ 'x-api-key': `${CONFIG_KEY}x` })).toBe(401);
    expect(await get({ 'x-api-key': CONFIG_KEY, authorization: 'Bearer wrong' })).toBe(401);
  });

  it('refuses the key followed by a NUL (at the HTTP parser, or as a wrong key)', async () => {
    let status: number;
    try {
      status = (await call('GET', '/v1/models', `Bearer ${CONFIG_KEY}\u0000`)).status;
    } catch {
      // undici will not send such a header at all: nothing reached svir.
      status = 0;
    }
    expect([0, 400, 401]).toContain(status);
  });

  it.each([
    ['the config key', `Bearer ${CONFIG_KEY}`],
    ['the SVIR_API_KEYS key', `Bearer ${ENV_KEY}`],
    ['a lower-case scheme', `bearer ${CONFIG_KEY}`],
  ])('accepts %s on every route', async (_name, authorization) => {
    for (const [method, path] of registeredRoutes()) {
      if (method === 'HEAD') continue;
      upstream.enqueue(helloScript());
      const answer = await call(method, path, authorization);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 200)}`).not.toBe(401);
      upstream.setScript(() => helloScript());
    }
  });
});
