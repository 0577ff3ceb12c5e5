/**
 * The live page's endpoints without a browser (docs/live-page.md): GET / for browsers only, the
 * page's files public, its data (GET /svir/api/state, GET /svir/api/events) behind svir's keys
 * with 401 in the one error shape, and what the data holds: each backend with its URL and never
 * its key, the routed requests with their route label and svir's changes, the requests in flight
 * with their tokens so far, and never a prompt or an answer.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND, LIVE_MODEL, startLivePageRig, UPSTREAM_KEY, type LivePageRig } from './harness/start-live-page-rig.js';
import { readFeed, type Feed } from './harness/read-feed.js';

const KEY = 'sk-svir-live-page-tests';
const PROMPT = 'The secret plan is written on the blue napkin.';
const ANSWER = ['Napkin', ' noted', ' here.'];

const errorShape = z.object({ error: z.object({ message: z.string(), type: z.string(), code: z.string() }) });
const backendSchema = z.object({
  name: z.string(),
  type: z.string(),
  url: z.string(),
  state: z.enum(['up', 'down', 'unknown']),
  reason: z.string().optional(),
  models: z.array(z.string()),
  modelsFrom: z.enum(['config', 'discovery']),
  active: z.number(),
  queued: z.number(),
  maxConcurrent: z.number(),
  maxQueue: z.number(),
});
const requestSchema = z.object({
  id: z.string(),
  route: z.string(),
  startedAt: z.number(),
  model: z.string().optional(),
  backend: z.string().optional(),
  status: z.number(),
  error: z.string().optional(),
  ttftMs: z.number().optional(),
  durationMs: z.number(),
  tokensIn: z.number().optional(),
  tokensOut: z.number().optional(),
  changes: z.array(z.string()),
});
const openSchema = z.object({ route: z.string(), model: z.string().optional(), backend: z.string().optional(), elapsedMs: z.number(), tokens: z.number() });
const stateSchema = z.object({
  now: z.number(),
  backends: z.array(backendSchema),
  open: z.array(openSchema),
  rates: z.object({ bucketMs: z.number(), start: z.number(), backends: z.record(z.string(), z.array(z.number())) }),
  recent: z.array(requestSchema),
});

let rig: LivePageRig;
const auth = { authorization: `Bearer ${KEY}` };
const feeds: Feed[] = [];

async function state(): Promise<{ text: string; state: z.infer<typeof stateSchema> }> {
  const response = await fetch(`${rig.origin}/svir/api/state`, { headers: auth });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, state: stateSchema.parse(JSON.parse(text)) };
}

function client(): OpenAI {
  return new OpenAI({ baseURL: `${rig.origin}/v1`, apiKey: KEY, maxRetries: 0 });
}

beforeAll(async () => {
  rig = await startLivePageRig({ apiKeys: [KEY] });
});
afterEach(() => {
  for (const feed of feeds.splice(0)) feed.close();
});
afterAll(async () => {
  await rig.close();
});

describe('GET / and the page files', () => {
  it('gives a browser the page, public, with a policy that runs its own script only', async () => {
    const response = await fetch(`${rig.origin}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/svir/page/app.js">');
    for (const [path, type] of [
      ['/svir/page/app.js', /^text\/javascript/],
      ['/svir/page/app.css', /^text\/css/],
    ] as const) {
      const file = await fetch(`${rig.origin}${path}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toMatch(type);
    }
  });

  it('answers an API client at / as before: 401 without a key, 404 with one, whatever the method', async () => {
    for (const [method, accept] of [
      ['GET', 'application/json'],
      ['GET', '*/*'],
      ['POST', 'application/json'],
      ['POST', 'text/html'],
    ] as const) {
      const refused = await fetch(`${rig.origin}/`, { method, headers: { accept } });
      expect(refused.status, `${method} ${accept}`).toBe(401);
      const found = await fetch(`${rig.origin}/`, { method, headers: { accept, ...auth } });
      expect(found.status, `${method} ${accept}`).toBe(404);
      expect(errorShape.parse(await found.json()).error.code).toBe('not_found');
    }
  });
});

describe('the data endpoints', () => {
  it.each(['/svir/api/state', '/svir/api/events'])('%s refuses a request without the key, or with a wrong one, with 401 in the error shape', async (path) => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer sk-wrong' }, { authorization: KEY }];
    for (const headers of attempts) {
      const response = await fetch(`${rig.origin}${path}`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = errorShape.parse(await response.json());
      expect(body.error.code).toBe('invalid_api_key');
    }
  });

  it('shows the backend: type, URL without its key, up, its model, its limits', async () => {
    const { text, state: now } = await state();
    expect(now.backends).toEqual([
      {
        name: BACKEND,
        type: 'openai',
        url: `${rig.upstream.url}/v1/`,
        state: 'up',
        models: [LIVE_MODEL],
        modelsFrom: 'discovery',
        active: 0,
        queued: 0,
        maxConcurrent: 3,
        maxQueue: 5,
      },
    ]);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).not.toContain(KEY);
  });

  it('shows the backend down with the reason, then up again', async () => {
    rig.takeBackendDown();
    await rig.app.svir.registry.refresh();
    const down = (await state()).state.backends[0];
    expect(down?.state).toBe('down');
    expect(down?.reason).toEqual(expect.any(String));
    expect(down?.reason?.length).toBeGreaterThan(0);
    rig.bringBackendUp();
    await rig.app.svir.registry.refresh();
    const up = (await state()).state.backends[0];
    expect(up?.state).toBe('up');
    expect(up?.reason).toBeUndefined();
  });

  it("lists a routed request with its route, model, backend, status, times, tokens and svir's changes, and never the prompt or the answer", async () => {
    rig.streamAnswer(ANSWER, 0);
    const stream = await client().chat.completions.create({
      model: LIVE_MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      stream: true,
      tool_choice: 'auto',
    });
    let answer = '';
    for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
    expect(answer).toBe(ANSWER.join(''));
    const { text, state: now } = await state();
    const last = now.recent.at(-1);
    expect(last).toMatchObject({
      route: 'chat',
      model: LIVE_MODEL,
      backend: BACKEND,
      status: 200,
      tokensIn: 7,
      tokensOut: ANSWER.length,
      changes: ['tool_choice dropped: no tools'],
    });
    expect(last?.ttftMs).toEqual(expect.any(Number));
    expect(last?.durationMs).toBeGreaterThanOrEqual(last?.ttftMs ?? 0);
    expect(text).not.toContain('blue napkin');
    expect(text).not.toContain('Napkin noted');
    expect(text).not.toContain(UPSTREAM_KEY);
  });

  it('names each routed route, and leaves out what is not routed (model lists, health, the page itself)', async () => {
    const before = (await state()).state.recent.length;
    const post = (path: string, body: Record<string, unknown>): Promise<Response> =>
      fetch(`${rig.origin}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/v1/embeddings', { model: 'no-such-model', input: 'x' })).status).toBe(404);
    expect((await post('/v1/completions', { model: 'no-such-model', prompt: 'x' })).status).toBe(404);
    expect((await post('/v1/responses', { model: 'no-such-model', input: 'x' })).status).toBe(404);
    expect((await post('/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404);
    expect((await fetch(`${rig.origin}/v1/models`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${rig.origin}/healthz`)).status).toBe(200);
    const recent = (await state()).state.recent.slice(before);
    expect(recent.map((request) => [request.route, request.status, request.error])).toEqual([
      ['embeddings', 404, 'model_not_found'],
      ['completions', 404, 'model_not_found'],
      ['responses', 404, 'model_not_found'],
      ['chat', 404, 'model_not_found'],
    ]);
  });

  it('shows a stream in flight with its tokens so far rising, and not once it has ended', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => ` w${i}`);
    rig.streamAnswer(texts, 150);
    const stream = await client().chat.completions.create({ model: LIVE_MODEL, messages: [{ role: 'user', content: PROMPT }], stream: true });
    const reading = (async () => {
      for await (const chunk of stream) void chunk;
    })();
    const seen: number[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const open = (await state()).state.open;
      if (open.length === 1) {
        expect(open[0]).toMatchObject({ route: 'chat', model: LIVE_MODEL, backend: BACKEND });
        seen.push(open[0]?.tokens ?? 0);
      }
      if (seen.length >= 2 && (seen.at(-1) ?? 0) > (seen[0] ?? 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBeGreaterThan(seen[0] ?? 0);
    await reading;
    expect((await state()).state.open).toEqual([]);
  });
});

describe('the feed', () => {
  it('opens with the full state, then sends each routed request as its response closes', async () => {
    const feed = await readFeed(`${rig.origin}/svir/api/events`, auth);
    feeds.push(feed);
    const first = await feed.next();
    expect(first.event).toBe('state');
    stateSchema.parse(first.data);
    rig.streamAnswer(ANSWER, 0);
    await client().chat.completions.create({ model: LIVE_MODEL, messages: [{ role: 'user', content: PROMPT }], tool_choice: 'none' });
    const request = await feed.nextOf('request');
    expect(requestSchema.parse(request.data)).toMatchObject({ route: 'chat', status: 200, changes: ['tool_choice dropped: no tools'] });
  });

  it('sends the live state once a second', async () => {
    const feed = await readFeed(`${rig.origin}/svir/api/events`, auth);
    feeds.push(feed);
    const live = await feed.nextOf('live');
    const parsed = stateSchema.omit({ recent: true }).parse(live.data);
    expect(parsed.backends[0]?.name).toBe(BACKEND);
  });

  it('is ended when the server closes, which does not wait for it', async () => {
    const own = await startLivePageRig();
    const feed = await readFeed(`${own.origin}/svir/api/events`, {});
    expect((await feed.next()).event).toBe('state');
    await own.close();
    await expect(feed.ended).resolves.toBe(true);
  });
});
