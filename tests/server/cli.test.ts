/**
 * The `svir` program as a user runs it: a child process (src/cli.ts through tsx), its start-up
 * summary, a request to the URL it printed, and SIGTERM ending it with exit code 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, SVIR_CONFIG: '', SVIR_API_KEYS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitForText(read: () => string, pattern: RegExp, exited: Promise<unknown>): Promise<RegExpMatchArray> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    const match = read().match(pattern);
    if (match) return match;
    if (gone) throw new Error(`exited before printing ${pattern}: ${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let dir = '';
let upstream: ScriptedUpstream;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svir-cli-'));
  upstream = await startScriptedUpstream();
  upstream.models(['m1', 'm2']);
  upstream.chat({
    kind: 'sse',
    pieces: [sse({ id: 'u', model: 'm1', choices: [{ index: 0, delta: { content: 'pong' }, finish_reason: 'stop' }] }, '[DONE]')],
  });
});
afterAll(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

describe('svir (the program)', () => {
  it('--help prints the usage and exits 0', async () => {
    const cli = run(['--help']);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toMatch(/svir \[--config FILE\] \[--host HOST\] \[--port PORT\]/);
    expect(cli.stdout()).toContain('SVIR_CONFIG');
  });

  it('refuses a bad config with every bad path, and exits 1', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      ['backends:', '  - name: a', '    type: openai', '    url: http://127.0.0.1:1/v1?key=x', '    apiKey: ${SVIR_TEST_MISSING_VAR}', ''].join('\n'),
    );
    const missing = run(['--config', file]);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain('backends.0.apiKey: environment variable SVIR_TEST_MISSING_VAR is not set');

    const cli = run(['--config', file], { SVIR_TEST_MISSING_VAR: 'k' });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('backends.0.url: must not carry a query');
  });

  it('serves with the config from SVIR_CONFIG, prints where, and exits 0 on SIGTERM', async () => {
    const file = join(dir, 'svir.yaml');
    await writeFile(file, `server:\n  logLevel: warn\nbackends:\n  - name: fake\n    type: openai\n    url: ${upstream.url}\n`);
    const cli = run(['--port', '0'], { SVIR_CONFIG: file });
    const [, baseUrl] = await waitForText(cli.stderr, /OpenAI base URL for clients: (http:\/\/127\.0\.0\.1:\d+\/v1)\n/, cli.exited);
    expect(cli.stderr()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(cli.stderr()).toMatch(/up\s+fake \(openai\) http:\/\/127\.0\.0\.1:\d+\/v1\/\s+2 models/);
    expect(cli.stderr()).toContain(`config: ${file}`);

    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm1', messages: [{ role: 'user', content: 'ping' }] }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('pong');

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toMatch(/SIGTERM, shutting down/);
  });

  it('without a config fronts the usual local ports, shows each backend, and serves anyway', async () => {
    const cli = run(['--port', '0', '--host', '127.0.0.1']);
    const [, url] = await waitForText(cli.stderr, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, cli.exited);
    await waitForText(cli.stderr, /OpenAI base URL/, cli.exited);
    expect(cli.stderr()).toMatch(/built-in default/);
    for (const [name, port] of [['lmstudio', 1234], ['llamacpp', 8080], ['vllm', 8000], ['ollama', 11434]] as const) {
      expect(cli.stderr()).toMatch(new RegExp(`(up|down)\\s+${name} \\(${name}\\) http://127\\.0\\.0\\.1:${port}/v1/`));
    }
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  });

  it('refuses a bad --port with exit code 2', async () => {
    const cli = run(['--port', 'eighty']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('--port must be a number');
  });
});
