/**
 * No key in logs, errors, metrics or /v1/models. A full scenario runs through svir with every
 * kind of key configured (svir's own in the config and in SVIR_API_KEYS, an openai backend's
 * and an azure backend's) and upstreams that echo the key they received in every error form;
 * then every response header and body, and every log line at the most verbose level, is
 * searched for every key. The backend keys must reach their own backend, and only that one.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChatEvents } from '../faults/chat-events.js';
import { helloScript, startFaultUpstream, type FaultUpstream, type Script, type UpstreamRecord } from '../faults/fault-upstream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

const CLIENT_KEY = 'svir-client-key-5e2d8a1f93c4';
const ENV_KEY = 'svir-env-key-b7c41d09e2aa';
const OPENAI_KEY = 'backend-openai-key-19fe3c7d2b';
const AZURE_KEY = 'backend-azure-key-6a0d4e8f1c';
const KEYS = [CLIENT_KEY, ENV_KEY, OPENAI_KEY, AZURE_KEY];

let openai: FaultUpstream;
let azure: FaultUpstream;
let svir: RunningSvir;
/** Everything a client saw. */
const seen: string[] = [];

/** The key the upstream received, echoed back in the form the scenario asks for. */
function echoScript(record: UpstreamRecord): Script {
  const received = String(record.headers.authorization ?? record.headers['api-key'] ?? '');
  const prompt = JSON.stringify(record.json ?? '');
  const mention = `the key you sent (${received}) is wrong; header api-key: ${received}`;
  if (prompt.includes('echo-401')) return { status: 401, body: JSON.stringify({ error: { message: mention, type: 'auth' } }) };
  if (prompt.includes('echo-403')) return { status: 403, body: `<html>Forbidden for ${received}</html>`, bodyContentType: 'text/html' };
  if (prompt.includes('echo-500')) return { status: 500, body: JSON.stringify({ error: mention }) };
  if (prompt.includes('echo-400')) return { status: 400, body: JSON.stringify({ detail: [{ msg: mention, loc: ['body'] }] }) };
  if (prompt.includes('echo-422')) return { status: 422, body: JSON.stringify({ detail: mention }) };
  if (prompt.includes('echo-429')) return { status: 429, headers: { 'retry-after': '2' }, body: JSON.stringify({ error: { message: mention } }) };
  if (prompt.includes('echo-stream')) {
    return {
      events: [...buildChatEvents({ content: ['partial'] }).slice(0, 2), JSON.stringify({ error: { message: mention, type: 'server_error', code: 500 } })],
      done: false,
    };
  }
  if (prompt.includes('echo-first')) {
    return { events: [JSON.stringify({ error: { message: mention, code: 500 } })], done: false };
  }
  return helloScript();
}

beforeAll(async () => {
  openai = await startFaultUpstream({ models: ['m'], script: echoScript });
  azure = await startFaultUpstream({ models: ['dep'], script: echoScript });
  svir = await startSvir(
    {
      server: { apiKeys: [CLIENT_KEY] },
      backends: [
        { name: 'local', type: 'openai', url: openai.url, models: ['m'], apiKey: OPENAI_KEY },
        { name: 'az', type: 'azure', url: azure.origin, models: ['dep'], apiKey: AZURE_KEY, apiVersion: '2024-10-21' },
      ],
    },
    { env: { SVIR_API_KEYS: ENV_KEY }, logLevel: 'trace' },
  );

  const call = async (method: 'GET' | 'POST', path: string, key: string | undefined, body?: unknown): Promise<void> => {
    const response = await request(`${svir.url}${path}`, {
      method,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    seen.push(`${path} ${response.statusCode} ${JSON.stringify(response.headers)} ${await response.body.text()}`);
  };

  const scenarios = ['hello', 'echo-401', 'echo-403', 'echo-500', 'echo-400', 'echo-422', 'echo-429', 'echo-stream', 'echo-first'];
  for (const model of ['m', 'dep']) {
    for (const prompt of scenarios) {
      for (const stream of [true, false]) {
        const key = stream ? CLIENT_KEY : ENV_KEY;
        await call('POST', '/v1/chat/completions', key, { model, stream, messages: [{ role: 'user', content: prompt }] });
      }
    }
  }
  await call('POST', '/v1/chat/completions', 'a-wrong-guess', { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  await call('POST', '/v1/chat/completions', undefined, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  await call('POST', '/v1/chat/completions', CLIENT_KEY, { model: 'nobody-serves-this', messages: [{ role: 'user', content: 'hi' }] });
  await call('POST', '/v1/chat/completions', CLIENT_KEY, { model: 'm', messages: 'not a list' });
  for (const path of ['/v1/models', '/v1/models/m', '/v1/models/dep', '/metrics', '/healthz', '/readyz', '/nowhere']) {
    await call('GET', path, CLIENT_KEY);
  }
});

afterAll(async () => {
  await svir?.close();
  await openai?.close();
  await azure?.close();
});

/** A key as it could appear: raw, JSON-escaped, URL-encoded, base64. */
function forms(key: string): string[] {
  return [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key), Buffer.from(key).toString('base64')];
}

describe('keys stay where they belong', () => {
  it('ran the scenario: answers, errors of every form, and every route', () => {
    expect(seen.length).toBeGreaterThan(40);
    expect(seen.some((line) => line.startsWith('/v1/chat/completions 200'))).toBe(true);
    expect(seen.some((line) => line.startsWith('/v1/chat/completions 502'))).toBe(true);
    expect(seen.some((line) => line.startsWith('/v1/chat/completions 429'))).toBe(true);
    expect(seen.some((line) => line.startsWith('/v1/chat/completions 401'))).toBe(true);
    expect(seen.some((line) => line.startsWith('/metrics 200'))).toBe(true);
    expect(svir.logs.length).toBeGreaterThan(40);
  });

  it('no key in any response: headers, bodies, error messages, streams, /v1/models, /metrics', () => {
    const all = seen.join('\n');
    for (const key of KEYS) for (const form of forms(key)) expect(all, key).not.toContain(form);
  });

  it('no key in any log line, at the most verbose level', () => {
    const all = svir.logs.join('\n');
    for (const key of KEYS) for (const form of forms(key)) expect(all, key).not.toContain(form);
  });

  it('each backend key reached its own backend only, and the client key no backend', () => {
    const headersOf = (upstream: FaultUpstream): string =>
      upstream.requests.filter((record) => record.method === 'POST').map((record) => record.rawHeaders.join('\n')).join('\n');
    expect(headersOf(openai)).toContain(`Bearer ${OPENAI_KEY}`);
    expect(headersOf(azure)).toContain(AZURE_KEY);
    expect(headersOf(openai)).not.toContain(AZURE_KEY);
    expect(headersOf(azure)).not.toContain(OPENAI_KEY);
    for (const upstream of [openai, azure]) {
      const all = upstream.requests.map((record) => `${record.rawHeaders.join('\n')}\n${record.body?.toString('utf8') ?? ''}`).join('\n');
      expect(all).not.toContain(CLIENT_KEY);
      expect(all).not.toContain(ENV_KEY);
    }
  });
});
