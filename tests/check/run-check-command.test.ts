/**
 * `svir check` against fake servers on 127.0.0.1: a server that takes everything, one that is
 * down, one that refuses svir's key, one that lists only embedding models, one that cannot see
 * images, one that refuses stream_options, one that breaks mid-stream, and a bad config.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckCommand } from '../../src/check/run-check-command.js';
import { CHECK_FEATURES } from '../../src/check/check-probes.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import { sse, startScriptedUpstream, type ScriptedResponse, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { closedPort } from '../helpers/closed-port.js';

const checkChunks = chatChunkMaker({ id: 'chatcmpl-check', created: 1_767_225_600, model: 'm' });
const { chunk } = checkChunks;
const usage = checkChunks.usage({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 });

const OK_STREAM: ScriptedResponse = { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: '' }), chunk({ content: 'OK' }), chunk({}, 'stop'), usage, '[DONE]')] };
const NO_USAGE_STREAM: ScriptedResponse = { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: '' }), chunk({ content: 'OK' }), chunk({}, 'stop'), '[DONE]')] };

function hasImage(body: unknown): boolean {
  return JSON.stringify(body ?? null).includes('image_url');
}

interface Run {
  status: number;
  out: string;
  err: string;
}

const dir = mkdtempSync(join(tmpdir(), 'svir-check-'));
let count = 0;

async function check(configYaml: string, extraArgs: string[] = []): Promise<Run> {
  count += 1;
  const file = join(dir, `config-${count}.yaml`);
  writeFileSync(file, configYaml);
  let out = '';
  let err = '';
  const status = await runCheckCommand(['--config', file, '--timeout', '5', ...extraArgs], {
    env: {},
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { status, out, err };
}

/** The table row of a backend, as its cells. */
function row(out: string, name: string): Record<string, string> {
  const lines = out.split('\n');
  const header = lines.find((line) => line.startsWith('backend '))?.split(/\s{2,}/) ?? [];
  const cells = lines.find((line) => line.split(/\s{2,}/)[0] === name)?.split(/\s{2,}/) ?? [];
  return Object.fromEntries(header.map((title, i) => [title, cells[i] ?? '']));
}

let upstreams: ScriptedUpstream[] = [];
async function upstream(): Promise<ScriptedUpstream> {
  const started = await startScriptedUpstream();
  upstreams.push(started);
  return started;
}
beforeAll(() => {
  upstreams = [];
});
afterAll(async () => {
  for (const started of upstreams) await started.close();
});

describe('svir check', () => {
  it('reports a server that takes everything as usable, every feature yes, and exits 0', async () => {
    const server = await upstream();
    server.models(['qwen3.8-27b', 'text-embedding-nomic']);
    server.chat(OK_STREAM);
    const run = await check(`backends:\n  - name: good\n    type: openai\n    url: ${server.baseUrl}\n`);
    expect(run.err).toBe('');
    expect(run.status).toBe(0);
    const cells = row(run.out, 'good');
    expect(cells['state']).toBe('up');
    // The embedding model is not a chat model.
    expect(cells['models']).toBe('1');
    for (const feature of CHECK_FEATURES) expect(cells[feature], feature).toBe('yes');
    expect(run.out).toContain('probed with qwen3.8-27b');
    expect(run.out).toContain('All 1 backend(s) usable.');
    // Every probe reached the server, each a stream with the probe's feature in it.
    const sent = server.requestsTo('POST', '/v1/chat/completions').map((request) => JSON.stringify(request.body));
    expect(sent).toHaveLength(CHECK_FEATURES.length);
    expect(sent.every((body) => body.includes('"stream":true'))).toBe(true);
    expect(sent.some((body) => body.includes('"reasoning_effort":"low"'))).toBe(true);
    expect(sent.some((body) => body.includes('"json_schema"'))).toBe(true);
    expect(sent.some((body) => body.includes('"tools"'))).toBe(true);
    expect(sent.some((body) => body.includes('image_url'))).toBe(true);
  });

  it('marks a server nothing listens on as down and unusable, and exits 1', async () => {
    const server = await upstream();
    server.models(['m']);
    server.chat(OK_STREAM);
    const port = await closedPort();
    const run = await check(
      `backends:\n  - name: good\n    type: vllm\n    url: ${server.baseUrl}\n  - name: gone\n    type: llamacpp\n    url: http://127.0.0.1:${port}\n`,
    );
    expect(run.status).toBe(1);
    expect(row(run.out, 'gone')['state']).toBe('down');
    expect(row(run.out, 'gone')['stream']).toBe('-');
    expect(row(run.out, 'good')['stream']).toBe('yes');
    expect(run.out).toMatch(/gone \(llamacpp\).*\n\s+unusable: .*unreachable/);
    expect(run.out).toContain('1 of 2 backend(s) unusable: gone.');
    // What svir rewrites is known without the server.
    expect(run.out).toContain('tool_choice function "open_locker" sent as "required" with only that tool');
  });

  it('tells a server that refuses svir\'s key apart from one that is down', async () => {
    const server = await upstream();
    server.route('GET', '/v1/models', { kind: 'body', status: 401, body: { error: { message: 'Invalid API key' } } });
    const run = await check(`backends:\n  - name: locked\n    type: openai\n    url: ${server.baseUrl}\n    apiKey: wrong-key\n`);
    expect(run.status).toBe(1);
    expect(row(run.out, 'locked')['state']).toBe('auth failed');
    expect(run.out).toContain('upstream_auth_failed');
    expect(run.out).not.toContain('wrong-key');
    expect(server.requestsTo('GET', '/v1/models')[0]?.headers.authorization).toBe('Bearer wrong-key');
  });

  it('finds a server that lists only embedding models unusable', async () => {
    const server = await upstream();
    server.models(['text-embedding-nomic-embed-text-v1.5', 'bge-reranker']);
    const run = await check(`backends:\n  - name: embed\n    type: lmstudio\n    url: ${server.baseUrl}\n`);
    expect(run.status).toBe(1);
    expect(row(run.out, 'embed')['models']).toBe('0');
    expect(run.out).toContain('lists no chat model');
  });

  it('shows images rejected by a llama.cpp without projector and refused by svir for mlx-lm, both still usable', async () => {
    const llama = await upstream();
    llama.models(['/models/glimmer.gguf']);
    llama.chat({
      kind: 'handler',
      handle: (_req, res, recorded) => {
        if (hasImage(recorded.body)) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: {
                code: 500,
                message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj',
                type: 'server_error',
              },
            }),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sse(chunk({ role: 'assistant', content: null }), chunk({ content: 'OK' }), chunk({}, 'stop'), usage, '[DONE]'));
      },
    });
    const mlx = await upstream();
    mlx.models(['/Users/me/models/Qwen3.8-27B-4bit']);
    mlx.chat(OK_STREAM);
    const run = await check(
      `backends:\n  - name: llama\n    type: llamacpp\n    url: ${llama.url}\n  - name: mlx\n    type: mlx-lm\n    url: ${mlx.baseUrl}\n`,
    );
    expect(run.status).toBe(0);
    expect(row(run.out, 'llama')['images']).toBe('rejected');
    expect(run.out).toMatch(/images: rejected: 400 unsupported_content/);
    expect(row(run.out, 'mlx')['images']).toBe('refused');
    // mlx-lm reads no response_format: it works, and the report says svir cannot enforce it.
    expect(row(run.out, 'mlx')['json_schema']).toBe('yes*');
    expect(run.out).toContain('json_schema: works with: response_format not enforced: mlx-lm cannot constrain output');
    // mlx-lm never received the image.
    expect(mlx.requestsTo('POST', '/v1/chat/completions').some((request) => hasImage(request.body))).toBe(false);
    expect(mlx.requestsTo('POST', '/v1/chat/completions')).toHaveLength(CHECK_FEATURES.length - 1);
  });

  it('shows a server that refuses stream_options as retried, and one that sends no usage', async () => {
    const strict = await upstream();
    strict.models(['m']);
    strict.chat({
      kind: 'handler',
      handle: (_req, res, recorded) => {
        if (JSON.stringify(recorded.body ?? null).includes('stream_options')) {
          res.writeHead(422, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ detail: [{ type: 'extra_forbidden', loc: ['body', 'stream_options'], msg: 'Extra inputs are not permitted' }] }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sse(chunk({ role: 'assistant', content: '' }), chunk({ content: 'OK' }), chunk({}, 'stop'), '[DONE]'));
      },
    });
    const quiet = await upstream();
    quiet.models(['m']);
    quiet.chat(NO_USAGE_STREAM);
    const run = await check(
      `backends:\n  - name: strict\n    type: openai\n    url: ${strict.baseUrl}\n  - name: quiet\n    type: openai\n    url: ${quiet.baseUrl}\n`,
    );
    expect(run.status).toBe(0);
    expect(row(run.out, 'strict')['stream_options']).toBe('retried');
    expect(run.out).toMatch(/stream_options: retried: retried without stream_options/);
    expect(row(run.out, 'quiet')['stream_options']).toBe('no usage');
    expect(row(run.out, 'quiet')['stream']).toBe('yes');
  });

  it('finds a server whose stream breaks unusable', async () => {
    const server = await upstream();
    server.models(['m']);
    server.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: '' }), chunk({ content: 'O' }))], finish: 'destroy' });
    const run = await check(`backends:\n  - name: broken\n    type: mlx-vlm\n    url: ${server.baseUrl}\n`);
    expect(run.status).toBe(1);
    expect(row(run.out, 'broken')['stream']).toBe('failed');
    expect(run.out).toMatch(/unusable: a plain streamed request fails: 502 upstream_error/);
  });

  it('probes Ollama like the other types: a thinking model takes everything, one that cannot think is retried without the effort', async () => {
    const thinker = await startOllamaServer();
    const plain = await startOllamaServer({ models: [{ name: 'llama3.2:latest', tools: true }, { name: 'nomic-embed-text:latest', embedding: true }] });
    upstreams.push(thinker, plain);
    const run = await check(`backends:\n  - name: ol\n    type: ollama\n    url: ${thinker.url}\n  - name: ol-plain\n    type: ollama\n    url: ${plain.baseUrl}\n`);
    expect(run.err).toBe('');
    expect(run.status).toBe(0);
    const ol = row(run.out, 'ol');
    expect(ol['state']).toBe('up');
    // qwen3, llama3.2 and deepseek-v2; the embedding model is not a chat model.
    expect(ol['models']).toBe('3');
    for (const feature of CHECK_FEATURES) expect(ol[feature], feature).toBe('yes');
    expect(run.out).toContain('probed with qwen3:8b');
    const olPlain = row(run.out, 'ol-plain');
    expect(olPlain['models']).toBe('1');
    expect(olPlain['reasoning_effort']).toBe('retried');
    expect(run.out).toContain('retried without reasoning_effort (the model does not reason)');
    // What svir rewrites for Ollama is known without the server.
    expect(run.out).toContain('tool_choice function "open_locker": only that tool offered (a call is not forced)');
    expect(run.out).toContain('tool_choice "none": tools not sent');
    expect(run.out).toContain('reasoning sent back as reasoning');
  });

  it('refuses a bad config with every bad path, and exits 2 before probing anything', async () => {
    const run = await check('server:\n  port: "four"\nbackends:\n  - name: x\n    type: nope\n    url: http://user:pw@127.0.0.1:1/v1\n');
    expect(run.status).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toContain('server.port');
    expect(run.err).toContain('backends.0.type');
    expect(run.err).toContain('backends.0.url');
  });

  it('answers a bad argument with the usage and status 2', async () => {
    let err = '';
    const status = await runCheckCommand(['--bogus'], { env: {}, out: () => undefined, err: (text) => (err += text) });
    expect(status).toBe(2);
    expect(err).toContain('usage: svir check');
  });
});
