/**
 * The built svir program (tests/contract/harness) in front of real llama-servers, and the
 * requests a test sends through it.
 */
import { spawn } from 'node:child_process';
import type { SvirAnswer } from '../e2e/backends-rig.js';
import { builtSvir } from '../contract/harness/built-svir.js';
import { startSvirProcess, writeConfigFile, type SvirProcess } from '../contract/harness/run-svir.js';

export interface SvirFront {
  process: SvirProcess;
  chat(body: Record<string, unknown>, init?: { signal?: AbortSignal }): Promise<SvirAnswer>;
  post(path: string, body: Record<string, unknown>): Promise<SvirAnswer>;
}

/** A JSON config (JSON is YAML) for these backends. */
export function svirConfig(backends: readonly Record<string, unknown>[]): string {
  return JSON.stringify({ server: { host: '127.0.0.1', port: 0, logLevel: 'warn', keepaliveMs: 0 }, backends }, null, 2);
}

export async function startSvirFront(backends: readonly Record<string, unknown>[]): Promise<SvirFront> {
  const process = await startSvirProcess({ config: svirConfig(backends) });
  const post = async (path: string, body: Record<string, unknown>, init: { signal?: AbortSignal } = {}): Promise<SvirAnswer> => {
    const response = await fetch(`${process.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
  };
  return { process, chat: (body, init) => post('/v1/chat/completions', body, init), post: (path, body) => post(path, body) };
}

/** `svir check --config FILE`, run to its exit. */
export async function runSvirCheck(backends: readonly Record<string, unknown>[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { cli, root } = builtSvir();
  const written = writeConfigFile(svirConfig(backends));
  try {
    const child = spawn(process.execPath, [cli, 'check', '--config', written.file], { cwd: root, env: { PATH: process.env['PATH'] ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    return { code, stdout, stderr };
  } finally {
    written.remove();
  }
}
