/**
 * A client chooses a model, never a URL. Whatever it writes in the model name, in any other
 * field or in its headers, svir's upstream requests go to configured backends only, on the
 * paths svir itself uses; a trap server whose address the client hands out in every way never
 * hears from svir.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helloScript, startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

let openai: FaultUpstream;
let azure: FaultUpstream;
let trap: FaultUpstream;
let svir: RunningSvir;
/** The upstream paths svir used for legitimate requests: every later path must be one of them. */
const legitimatePaths = new Set<string>();

beforeAll(async () => {
  openai = await startFaultUpstream({ models: ['m'] });
  azure = await startFaultUpstream({ models: ['dep1'] });
  trap = await startFaultUpstream({ models: ['m', 'dep1'] });
  svir = await startSvir({
    aliases: { fast: 'm' },
    backends: [
      { name: 'local', type: 'openai', url: openai.url, models: ['m'] },
      { name: 'az', type: 'azure', url: azure.origin, models: ['dep1'], apiKey: 'azure-key-0123456789', apiVersion: '2024-10-21' },
    ],
  });
  for (const model of ['m', 'dep1', 'fast']) {
    for (const upstream of [openai, azure]) upstream.enqueue(helloScript());
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.body.text();
    expect(response.statusCode).toBe(200);
  }
  for (const upstream of [openai, azure]) for (const seen of upstream.requests) legitimatePaths.add(`${seen.method} ${seen.path}`);
});

afterAll(async () => {
  await svir?.close();
  for (const upstream of [openai, azure, trap]) await upstream?.close();
});

function trapUrls(): string[] {
  return [trap.url, `${trap.url}chat/completions`, trap.origin, trap.origin.replace('http://', ''), `//${trap.origin.replace('http://', '')}/v1/`];
}

function hostileModels(): string[] {
  return [
    ...trapUrls(),
    '../../admin',
    '../m',
    'm/../../../admin',
    '/v1/models',
    'm?api-version=evil',
    'm#fragment',
    '%2e%2e%2fadmin',
    'dep1/../../admin',
    'dep1?api-version=evil',
    'dep1/chat/completions?x=',
    'dep1%2f..%2f..%2fadmin',
    'local/../az/dep1',
    'az/../../trap',
    'file:///etc/passwd',
    `m@${trap.origin.replace('http://', '')}`,
  ];
}

function expectOnlyLegitimateUpstreamTraffic(): void {
  expect(trap.requests.map((seen) => `${seen.method} ${seen.path}`)).toEqual([]);
  for (const upstream of [openai, azure]) {
    for (const seen of upstream.requests) expect(legitimatePaths, `${seen.method} ${seen.path}`).toContain(`${seen.method} ${seen.path}`);
  }
}

describe('the model name', () => {
  it('only ever selects a configured backend on its fixed path', async () => {
    for (const model of hostileModels()) {
      openai.enqueue(helloScript());
      azure.enqueue(helloScript());
      const response = await request(`${svir.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await response.body.text();
      expect(response.statusCode, `${model}: ${text}`).toBeLessThan(500);
      if (response.statusCode >= 400) expect(readErrorBody(text), text).toBeDefined();
      // Scripts not taken would answer the next test's requests.
      openai.setScript(() => helloScript());
      azure.setScript(() => helloScript());
    }
    expectOnlyLegitimateUpstreamTraffic();
  });
});

describe('other fields and headers', () => {
  it('never name the upstream', async () => {
    const [target = ''] = trapUrls();
    const fields = ['url', 'base_url', 'baseURL', 'api_base', 'endpoint', 'path', 'deployment', 'deployment_id', 'backend', 'upstream', 'host', 'server', 'api_version', 'azure_endpoint'];
    const body: Record<string, unknown> = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    for (const field of fields) body[field] = target;
    body.extra_body = Object.fromEntries(fields.map((field) => [field, target]));
    body.metadata = { url: target };
    for (const model of ['m', 'dep1']) {
      openai.enqueue(helloScript());
      azure.enqueue(helloScript());
      const response = await request(`${svir.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-host': trap.origin.replace('http://', ''),
          'x-original-url': `${trap.url}chat/completions`,
          'x-rewrite-url': '/admin',
          forwarded: `host=${trap.origin.replace('http://', '')}`,
          'x-svir-backend': 'az',
          'x-backend-url': trap.url,
        },
        body: JSON.stringify({ ...body, model }),
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
    }
    expectOnlyLegitimateUpstreamTraffic();
  });

  it('the request path cannot reach past the chat route', async () => {
    for (const path of ['/v1/chat/completions/../../admin', '/v1/chat/completions/..%2f..%2fadmin', '/v1//chat/completions', '/v1/chat/completions%3Fx', `/v1/chat/completions?url=${encodeURIComponent(trap.url)}`]) {
      const response = await request(`${svir.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await response.body.text();
      expect(response.statusCode, `${path}: ${text}`).toBeLessThan(500);
      openai.setScript(() => helloScript());
    }
    expectOnlyLegitimateUpstreamTraffic();
  });
});
