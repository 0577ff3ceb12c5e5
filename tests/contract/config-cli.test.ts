/**
 * docs/contract.md#configuration through the built program: `svir --config FILE [--host H] [--port
 * P]`, SVIR_CONFIG, YAML or JSON with exactly the contract's keys, `${NAME}` from the environment,
 * a bad file refused with the path of each bad field and a non-zero exit, a base URL with userinfo,
 * a query or a fragment refused, base URLs with and without /v1 and a trailing slash, no config
 * fronting the usual local ports, and svir's own keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { expectContractStream, expectErrorShape } from './harness/contract-stream.js';
import { chat, send } from './harness/http.js';
import { runSvirToExit, startSvirProcess } from './harness/run-svir.js';

let up: ScriptedUpstream;

beforeAll(async () => {
  up = await startScriptedUpstream();
  up.models(['m']);
});
afterAll(async () => {
  await up?.close();
});

type Json = Record<string, unknown>;
const ck = (delta: Json, finish: string | null = null): Json => ({ id: 'u', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const hello = (model = 'm'): Json => ({ model, messages: [{ role: 'user', content: 'hello' }], stream: true });
function answerOk(upstream: ScriptedUpstream, content = 'ok'): void {
  upstream.chat({ kind: 'sse', pieces: [sse(ck({ role: 'assistant', content }), ck({}, 'stop'), '[DONE]')] });
}

describe('docs/contract.md#configuration a bad config stops svir, naming each bad field', () => {
  it('every bad field by its path, non-zero exit, nothing served', async () => {
    const exit = await runSvirToExit({
      config: [
        'server:',
        '  host: 127.0.0.1',
        '  port: not-a-port',
        '  apiKeys: "one"',
        'reasoning:',
        '  field: 3',
        'backends:',
        '  - name: a',
        '    type: nonsense',
        `    url: ${up.url}`,
        '  - name: b',
        '    type: lmstudio',
        '    url: http://127.0.0.1:1234/v1',
        '    reasoningTags: sometimes',
        '    models: qwen',
      ].join('\n'),
    });
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    for (const path of ['server.port', 'server.apiKeys', 'reasoning.field', 'backends.0.type', 'backends.1.reasoningTags', 'backends.1.models']) {
      expect(exit.stderr).toContain(path);
    }
    expect(exit.stderr).not.toMatch(/listening on/);
  });

  for (const [what, url] of [
    ['userinfo', 'http://user:pass@127.0.0.1:1234/v1'],
    ['a query', 'http://127.0.0.1:1234/v1?key=1'],
    ['a fragment', 'http://127.0.0.1:1234/v1#frag'],
    ['an empty query', 'http://127.0.0.1:1234/v1?'],
  ] as const) {
    it(`a backend URL with ${what} is refused at start`, async () => {
      const exit = await runSvirToExit({ config: `backends:\n  - name: a\n    type: openai\n    url: "${url}"\n` });
      expect(exit.code).not.toBe(0);
      expect(exit.stderr).toContain('backends.0.url');
      // The password is not printed back.
      expect(exit.stderr).not.toContain('pass@');
    });
  }

  it('reasoning.field naming a key the delta already uses (content) is refused: reasoning is never content', async () => {
    const exit = await runSvirToExit({ config: `reasoning:\n  field: content\nbackends:\n  - {name: a, type: openai, url: "${up.url}"}\n` });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('reasoning.field');
  });

  it('a missing environment variable is named with where it is used', async () => {
    const exit = await runSvirToExit({ config: `backends:\n  - name: a\n    type: openai\n    url: ${up.url}\n    apiKey: \${NOT_SET_ANYWHERE}\n` });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('backends.0.apiKey');
    expect(exit.stderr).toContain('NOT_SET_ANYWHERE');
  });

  it('duplicate backend names, and azure without models, are refused', async () => {
    const exit = await runSvirToExit({
      config: `backends:\n  - {name: a, type: openai, url: "${up.url}"}\n  - {name: a, type: openai, url: "${up.url}"}\n  - {name: z, type: azure, url: "https://r.openai.azure.com"}\n`,
    });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('backends.1.name');
    expect(exit.stderr).toContain('backends.2.models');
  });

  it('a file that does not exist, or is not YAML, is refused', async () => {
    const missing = await runSvirToExit({ args: ['--config', '/nonexistent/svir.yaml'] });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('/nonexistent/svir.yaml');
    const broken = await runSvirToExit({ config: 'backends: [\n  - name: : :\n' });
    expect(broken.code).not.toBe(0);
  });

  it('without keys, listening beyond loopback is refused', async () => {
    const exit = await runSvirToExit({ config: `server: {port: 0}\nbackends:\n  - {name: a, type: openai, url: "${up.url}"}\n`, args: ['--host', '0.0.0.0'] });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toMatch(/key/i);
  });
});

describe('docs/contract.md#configuration the config keys as written', () => {
  it('every base URL form reaches exactly /v1/models and /v1/chat/completions, never /v1/v1', async () => {
    const servers = await Promise.all([0, 1, 2, 3].map(() => startScriptedUpstream()));
    const forms = servers.map((server, i) => [server.url, `${server.url}/`, `${server.url}/v1`, `${server.url}/v1/`][i] ?? '');
    servers.forEach((server, i) => {
      server.models([`f${i}`]);
      answerOk(server);
    });
    const svir = await startSvirProcess({
      config: `server:\n  port: 0\nbackends:\n${forms.map((url, i) => `  - name: b${i}\n    type: openai\n    url: ${url}\n`).join('')}`,
    });
    try {
      for (const [i, server] of servers.entries()) {
        expect((await chat(svir.url, hello(`f${i}`))).status).toBe(200);
        expect(server.requests.map((r) => `${r.method} ${r.path}`)).toContain('POST /v1/chat/completions');
        for (const request of server.requests) expect(['GET /v1/models', 'POST /v1/chat/completions']).toContain(`${request.method} ${request.path}`);
      }
    } finally {
      await svir.stop();
      await Promise.all(servers.map((server) => server.close()));
    }
  });

  it('${NAME} values: the backend key, the port and svir\'s own keys from the environment; SVIR_CONFIG names the file', async () => {
    const svir = await startSvirProcess({
      viaEnv: true,
      env: { UPSTREAM_KEY: 'sk-from-env-1234', PORT: '0', CLIENT_KEY: 'client-key-from-env' },
      config: [
        'server:',
        '  host: 127.0.0.1',
        '  port: ${PORT}',
        '  apiKeys: ["${CLIENT_KEY}"]',
        'reasoning:',
        '  field: reasoning_content',
        'backends:',
        '  - name: lms',
        '    type: openai',
        `    url: ${up.url}/v1/`,
        '    apiKey: ${UPSTREAM_KEY}',
        '    models: [m]',
        '    reasoningTags: auto',
      ].join('\n'),
    });
    try {
      answerOk(up);
      expect((await chat(svir.url, hello())).status).toBe(401);
      const answer = await chat(svir.url, hello(), { authorization: 'Bearer client-key-from-env' });
      expect(answer.status).toBe(200);
      expect(up.requestsTo('POST', '/v1/chat/completions').at(-1)?.headers.authorization).toBe('Bearer sk-from-env-1234');
      // The keys are never printed.
      expect(svir.stderr() + svir.stdout()).not.toContain('sk-from-env-1234');
      expect(svir.stderr() + svir.stdout()).not.toContain('client-key-from-env');
    } finally {
      await svir.stop();
    }
  });

  it('a JSON config file works (JSON is YAML), and --host/--port override it', async () => {
    const svir = await startSvirProcess({
      config: JSON.stringify({ server: { host: '127.0.0.1', port: 1 }, backends: [{ name: 'a', type: 'openai', url: up.url, models: ['m'] }] }),
      args: ['--host', '127.0.0.1', '--port', '0'],
    });
    try {
      expect(svir.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(svir.url).not.toMatch(/:1$/);
      answerOk(up);
      expect((await chat(svir.url, hello())).status).toBe(200);
    } finally {
      const exit = await svir.stop();
      expect(exit.code).toBe(0);
    }
  });

  it('reasoningTags: off keeps <think> text as content; auto splits it', async () => {
    const svir = await startSvirProcess({
      config: `server: {port: 0}\nbackends:\n  - {name: off, type: openai, url: "${up.url}", models: [m-off], reasoningTags: "off"}\n  - {name: auto, type: openai, url: "${up.url}", models: [m-auto]}\n`,
    });
    try {
      const think = (): void => up.chat({ kind: 'sse', pieces: [sse(ck({ role: 'assistant', content: '<think>hm</think>Yes' }), ck({}, 'stop'), '[DONE]')] });
      think();
      const off = expectContractStream((await chat(svir.url, hello('m-off'))).text, { model: 'm-off' });
      expect(off.content).toBe('<think>hm</think>Yes');
      think();
      const auto = expectContractStream((await chat(svir.url, hello('m-auto'))).text, { model: 'm-auto' });
      expect(auto.content).toBe('Yes');
      expect(auto.reasoning).toBe('hm');
    } finally {
      await svir.stop();
    }
  });

  it('models: only the configured ones are served; others are 404 without asking the backend', async () => {
    const svir = await startSvirProcess({ config: `server: {port: 0}\nbackends:\n  - {name: a, type: openai, url: "${up.url}", models: [only-this]}\n` });
    try {
      const before = up.requestsTo('POST', '/v1/chat/completions').length;
      const answer = await chat(svir.url, hello('m'));
      expect(answer.status).toBe(404);
      expectErrorShape(answer.json, 'model_not_found');
      expect(up.requestsTo('POST', '/v1/chat/completions').length).toBe(before);
      const models = (await send(`${svir.url}/v1/models`)).json as { data: { id: string }[] };
      expect(models.data.map((m) => m.id)).toEqual(['only-this']);
    } finally {
      await svir.stop();
    }
  });
});

describe('docs/contract.md#configuration without --config', () => {
  it('fronts LM Studio :1234, llama.cpp :8080, vLLM :8000 and Ollama :11434 (port overridden, so 4000 is left alone)', async () => {
    const svir = await startSvirProcess({ args: ['--port', '0'] });
    try {
      const summary = svir.stderr();
      for (const port of [1234, 8080, 8000, 11434]) expect(summary).toContain(`http://127.0.0.1:${port}/v1/`);
      expect(svir.url).not.toContain(':4000');
      const models = await send(`${svir.url}/v1/models`);
      expect(models.status).toBe(200);
      expect((models.json as Json).object).toBe('list');
    } finally {
      expect((await svir.stop()).code).toBe(0);
    }
  });
});
