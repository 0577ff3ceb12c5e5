/**
 * The first five minutes: the built program, started with no config as `npm start` does, fronts
 * the usual local ports and prints one summary that says where svir listens, each backend's
 * state and model count, and the base URL to give a client. Run as a child process (port 0, so
 * it never collides with anything; the default port is checked on the config). Also
 * `svir check` through the same program.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/default-config.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { buildCli, type BuiltCli } from './build-cli.js';
import { closedPort } from '../helpers/closed-port.js';

let built: BuiltCli;
let upstream: ScriptedUpstream;

beforeAll(async () => {
  built = buildCli();
  upstream = await startScriptedUpstream();
  upstream.models(['qwen3.8-27b', 'glimmer-30b']);
  const { chunk } = chatChunkMaker({ id: 'chatcmpl-first-run', created: 1_767_225_600, model: 'qwen3.8-27b' });
  upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: '' }), chunk({ content: 'OK' }), chunk({}, 'stop'), '[DONE]')] });
});
afterAll(async () => {
  await upstream.close();
  built.remove();
});

/** Only what a fresh shell would have: no SVIR_CONFIG, no SVIR_API_KEYS. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** stderr up to and including the summary's last line. */
  summary: Promise<string>;
  exit: Promise<{ code: number | null; stderr: string; stdout: string }>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [built.cli, ...args], { cwd: built.root, env: cleanEnv() });
  let stderr = '';
  let stdout = '';
  let resolveSummary: (text: string) => void = () => undefined;
  const summary = new Promise<string>((resolve) => {
    resolveSummary = resolve;
  });
  child.stderr.setEncoding('utf8');
  child.stdout.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
    if (/OpenAI base URL for clients: \S+\n/.test(stderr)) resolveSummary(stderr);
  });
  child.stdout.on('data', (text: string) => {
    stdout += text;
  });
  const exit = new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    child.once('exit', (code) => {
      // Still waiting for a summary: the program died first; show what it said.
      resolveSummary(stderr);
      resolve({ code, stderr, stdout });
    });
  });
  return { child, summary, exit };
}

function listenUrl(summary: string): string {
  const match = /^svir \S+ listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(summary);
  if (match?.[1] === undefined) throw new Error(`no listen line in:\n${summary}`);
  return match[1];
}

describe('first run', () => {
  it('listens on 127.0.0.1:4000 by default, so clients use http://127.0.0.1:4000/v1', () => {
    const config = defaultConfig();
    expect(config.server.host).toBe('127.0.0.1');
    expect(config.server.port).toBe(4000);
    expect(config.server.apiKeys).toEqual([]);
  });

  it('with no config, fronts LM Studio, llama.cpp, vLLM and Ollama on their usual ports and prints one summary', async () => {
    const svir = run(['--port', '0']);
    const summary = await svir.summary;
    const url = listenUrl(summary);
    expect(summary).toContain('config: built-in default');
    for (const [name, port] of [
      ['lmstudio', 1234],
      ['llamacpp', 8080],
      ['vllm', 8000],
      ['ollama', 11434],
    ] as const) {
      // Each backend with its state; a server that is running here would be up, with its models.
      expect(summary).toMatch(new RegExp(`^ {4}(up {2}|down) {2}${name} \\(${name}\\) http://127\\.0\\.0\\.1:${port}/v1/ {2}\\S`, 'm'));
    }
    expect(summary).toContain('auth: none');
    expect(summary).toContain(`OpenAI base URL for clients: ${url}/v1\n`);
    // One summary: the listen line once.
    expect(summary.match(/listening on/g)).toHaveLength(1);

    // It really serves there, without a key on loopback.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/v1/models`)).status).toBe(200);

    svir.child.kill('SIGTERM');
    const exit = await svir.exit;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('SIGTERM, shutting down');
  });

  it('shows a backend that answers as up with its model count, and one that does not as down', async () => {
    const file = join(built.root, 'config.yaml');
    const gone = await closedPort();
    writeFileSync(
      file,
      `server:\n  port: 0\nbackends:\n  - name: fake\n    type: openai\n    url: ${upstream.baseUrl}\n  - name: gone\n    type: llamacpp\n    url: http://127.0.0.1:${gone}\n`,
    );
    const svir = run(['--config', file]);
    const summary = await svir.summary;
    const url = listenUrl(summary);
    expect(summary).toContain(`config: ${file}`);
    expect(summary).toMatch(new RegExp(`^ {4}up {4}fake \\(openai\\) ${upstream.baseUrl}/ {2}2 models$`, 'm'));
    expect(summary).toMatch(new RegExp(`^ {4}down {2}gone \\(llamacpp\\) http://127\\.0\\.0\\.1:${gone}/v1/ {2}.*unreachable`, 'm'));
    expect(summary).toContain(`OpenAI base URL for clients: ${url}/v1\n`);
    // Served once: the program is past its start-up (it prints the summary before it listens
    // for signals, so a signal sent on the summary alone can land before the handler).
    expect((await fetch(`${url}/v1/models`)).status).toBe(200);
    svir.child.kill('SIGTERM');
    const exit = await svir.exit;
    expect(exit.code, exit.stderr).toBe(0);
  });

  it('refuses a bad config with the path of each bad field and a non-zero status', async () => {
    const file = join(built.root, 'bad.yaml');
    writeFileSync(file, 'backends:\n  - name: x\n    type: lmstudio\n    url: http://127.0.0.1:1234/v1?key=1\n');
    const exit = await run(['--config', file]).exit;
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('backends.0.url');
    expect(exit.stderr).not.toContain('listening on');
  });

  it('svir check runs through the same program: the table on stdout, status 0 when every backend is usable', async () => {
    const file = join(built.root, 'check.yaml');
    writeFileSync(file, `backends:\n  - name: fake\n    type: openai\n    url: ${upstream.baseUrl}\n`);
    const exit = await run(['check', '--config', file, '--timeout', '10']).exit;
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^fake {2,}openai {2,}up {2,}2 {2,}yes/m);
    expect(exit.stdout).toContain('All 1 backend(s) usable.');
  });

  it('svir check exits non-zero when a backend is unusable', async () => {
    const file = join(built.root, 'check-gone.yaml');
    writeFileSync(file, `backends:\n  - name: gone\n    type: vllm\n    url: http://127.0.0.1:${await closedPort()}/v1\n`);
    const exit = await run(['check', '--config', file]).exit;
    expect(exit.code).toBe(1);
    expect(exit.stdout).toContain('1 of 1 backend(s) unusable: gone.');
  });
});
