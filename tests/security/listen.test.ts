/**
 * Where svir listens. Loopback by default; beyond loopback, no start without keys unless the
 * config explicitly allows it. Tested through startServer and the `svir` program. The tests
 * never bind beyond 127.0.0.1: an address this machine does not have (192.0.2.1, TEST-NET-1)
 * shows the safety check let the start through, because the listen itself then fails with
 * EADDRNOTAVAIL instead of the refusal.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { startServer } from '../../src/lifecycle/start-server.js';
import { startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** TEST-NET-1 (RFC 5737): never assigned to this machine. */
const NOT_HERE = '192.0.2.1';

let upstream: FaultUpstream;
let dir = '';

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  dir = await mkdtemp(join(tmpdir(), 'svir-listen-'));
});

afterAll(async () => {
  await upstream?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

function config(server: Record<string, unknown>) {
  return configSchema.parse({ server: { port: 0, logLevel: 'warn', ...server }, backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'] }] });
}

function quietLogger(lines: string[] = []) {
  return createLogger({ level: 'warn', secrets: [], destination: { write: (line: string) => void lines.push(line) } });
}

describe('startServer', () => {
  it('listens on 127.0.0.1 when the config names no host', async () => {
    const parsed = configSchema.parse({ backends: [{ name: 'fake', type: 'openai', url: upstream.url }] });
    expect(parsed.server.host).toBe('127.0.0.1');
    const started = await startServer(config({}), { logger: quietLogger(), env: {} });
    try {
      const address = started.app.server.address();
      expect(typeof address === 'object' && address !== null ? address.address : address).toBe('127.0.0.1');
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await started.app.close();
    }
  });

  it.each([['0.0.0.0'], ['::'], [NOT_HERE], ['10.1.2.3'], ['example.com'], ['[::]']])(
    'refuses %s without keys, before listening',
    async (host) => {
      await expect(startServer(config({ host }), { logger: quietLogger(), env: {} })).rejects.toThrow(/refusing to listen/);
    },
  );

  it.each([['127.0.0.1'], ['localhost'], ['::1'], ['127.0.0.2']])('counts %s as loopback, so it needs no key', async (host) => {
    // Only the check is exercised for names that may bind more than 127.0.0.1 here.
    const { checkListenSafety } = await import('../../src/auth/check-listen-safety.js');
    expect(checkListenSafety(host, [], false).ok).toBe(true);
  });

  it('lets a non-loopback start through with keys from the config', async () => {
    const attempt = startServer(config({ host: NOT_HERE, apiKeys: ['k-0123456789abcdef'] }), { logger: quietLogger(), env: {} });
    await expect(attempt).rejects.toThrow(/EADDRNOTAVAIL/);
  });

  it('lets a non-loopback start through with keys from SVIR_API_KEYS', async () => {
    const attempt = startServer(config({ host: NOT_HERE }), { logger: quietLogger(), env: { SVIR_API_KEYS: 'k-0123456789abcdef' } });
    await expect(attempt).rejects.toThrow(/EADDRNOTAVAIL/);
  });

  it('lets it through without keys only when allowUnauthenticated is set, with a warning', async () => {
    const lines: string[] = [];
    const attempt = startServer(config({ host: NOT_HERE, allowUnauthenticated: true }), { logger: quietLogger(lines), env: {} });
    await expect(attempt).rejects.toThrow(/EADDRNOTAVAIL/);
    expect(lines.join('\n')).toMatch(/without API keys/);
  });
});

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, SVIR_CONFIG: '', SVIR_API_KEYS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, stdout })));
}

describe('the svir program', () => {
  it('refuses --host 0.0.0.0 without keys, and says how to fix it', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, `backends:\n  - name: fake\n    type: openai\n    url: ${upstream.url}\n    models: [m]\n`);
    const result = await runCli(['--config', file, '--host', '0.0.0.0', '--port', '0'], {});
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/refusing to listen on 0\.0\.0\.0/);
    expect(result.stderr).toMatch(/apiKeys|SVIR_API_KEYS/);
    expect(result.stdout).not.toMatch(/listening/);
  });

  it('refuses a config file that listens beyond loopback without keys', async () => {
    const file = join(dir, 'wide.yaml');
    await writeFile(file, `server:\n  host: "::"\n  port: 0\nbackends:\n  - name: fake\n    type: openai\n    url: ${upstream.url}\n    models: [m]\n`);
    const result = await runCli(['--config', file], {});
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/refusing to listen/);
  });
});
