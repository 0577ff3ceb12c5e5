/**
 * The real llama.cpp `llama-server` that scripts/real-llama/setup.sh built, with one of the tiny
 * models it made, as a child process on 127.0.0.1. llama-server takes no port 0, so a free port
 * is found first (a listener on port 0, closed again) and a start that loses the port to another
 * process is tried again on a new one. Stopped by its own pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where setup.sh caches the build and the models. */
export function realpeersDir(): string {
  return process.env['REALPEERS'] ?? join(homedir(), 'realpeers');
}

export const LLAMA_SERVER_BIN = join(realpeersDir(), 'llama.cpp', 'build', 'bin', 'llama-server');
export const MODELS = {
  /** Calls a tool only when a grammar makes it. */
  plain: join(realpeersDir(), 'models', 'tiny-qwen3-chatml.gguf'),
  /** Also calls a tool on the first turn when the prompt has tools (tool_choice auto). */
  toolAware: join(realpeersDir(), 'models', 'tiny-qwen3-chatml-toolaware.gguf'),
} as const;

/** The tiny model of one chat format (scripts/real-llama/tiny_formats.py): `tiny-<format>.gguf`. */
export function formatModel(format: string): string {
  return join(realpeersDir(), 'models', `tiny-${format}.gguf`);
}

/** The context every variant runs with: the two-tool prompt is ~270 tokens of it. */
export const N_CTX = 512;

export interface RealLlamaServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  model: string;
  /** What it printed so far (its log goes to stderr). */
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address for a free port');
  return address.port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function startOnce(model: string, extraArgs: readonly string[]): Promise<RealLlamaServer | 'port-taken'> {
  const port = await freePort();
  const args = ['-m', model, '--host', '127.0.0.1', '--port', String(port), '--jinja', '-c', String(N_CTX), '--threads', '1', ...extraArgs];
  const child = spawn(LLAMA_SERVER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (log += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (log += text));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      if (/bind|address already in use/i.test(log)) return 'port-taken';
      throw new Error(`llama-server exited (${child.exitCode ?? child.signalCode}) before it was healthy:\n${log.slice(-3000)}`);
    }
    if (await healthy(url)) return { url, port, model, log: () => log, stop: () => stopChild(child) };
    await sleep(200);
  }
  await stopChild(child);
  throw new Error(`llama-server was not healthy within 60 s:\n${log.slice(-3000)}`);
}

/** Starts llama-server with `model` and these extra arguments; resolves once /health answers. */
export async function startRealLlamaServer(model: string, extraArgs: readonly string[] = []): Promise<RealLlamaServer> {
  for (const file of [LLAMA_SERVER_BIN, model]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run bash scripts/real-llama/setup.sh (npm run test:real does)`);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = await startOnce(model, extraArgs);
    if (started !== 'port-taken') return started;
  }
  throw new Error('llama-server lost its port to another process five times');
}
