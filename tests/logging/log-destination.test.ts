/**
 * svir's log destination gathers the lines logged in one loop turn and writes them at its end
 * (create-log-destination.ts): no line may be lost to that, nor come out of order, whatever ends
 * the process: process.exit, a crash, an unhandled rejection, the CLI's graceful shutdown on
 * SIGTERM; and a line must not wait for the next one to be written.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtSvir } from '../contract/harness/built-svir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Child {
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  resume(): void;
}

/**
 * `args` run under the TypeScript loader unless the first is a .mjs file; `paused`: stdout is not
 * read until resume() (the reader stalls meanwhile).
 */
function start(args: string[], env: Record<string, string> = {}, paused = false): Child {
  const child = spawn(process.execPath, args[0]?.endsWith('.mjs') === true ? args : ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, SVIR_CONFIG: '', SVIR_API_KEYS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  if (paused) child.stdout.pause();
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  // 'close': stdout and stderr are read to their end, not only the process gone.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { stdout: () => out, stderr: () => err, exited, kill: (signal) => child.kill(signal), resume: () => child.stdout.resume() };
}

function lines(text: string): { msg?: string; n?: number; path?: string; status?: number }[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { msg?: string; n?: number });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resumes reading the child's stdout `thenMs` after `ready` (or once the wait failed): the reader
 * stalled until then.
 */
async function resumeWhen(child: Child, ready: () => boolean, what: string, thenMs = 0): Promise<void> {
  try {
    await until(ready, what);
    if (thenMs > 0) await pause(thenMs);
  } finally {
    child.resume();
  }
}

/** The child ended with `code`, and wrote lines 0 to count - 1, each once, in order. */
async function expectEveryLine(child: Child, count: number, code: number | null = 0): Promise<void> {
  expect(await child.exited).toBe(code);
  expect(lines(child.stdout()).map((line) => line.n)).toEqual(Array.from({ length: count }, (_, i) => i));
}

// Many lines logged in one turn: they gather behind the first write and must all come out.
const COUNT = 160;

describe('the default log destination', () => {
  for (const [how, code] of [
    ['exit', 0],
    ['throw', 1],
    ['reject', 1],
  ] as const) {
    it(`writes every line logged before ${how === 'exit' ? 'process.exit' : how === 'throw' ? 'an uncaught exception' : 'an unhandled rejection'}`, async () => {
      await expectEveryLine(start(['tests/helpers/log-then-end.ts', String(COUNT), how]), COUNT, code);
    });
  }

  it('writes the lines in the order they were logged when process.exit comes while the thread pool is busy', async () => {
    // One pool thread, held by a long job queued before the first line: a write handed to the
    // pool would still wait there when process.exit writes the rest (create-log-destination.ts).
    await expectEveryLine(start(['tests/helpers/log-then-end.ts', String(COUNT), 'exit-busy-pool'], { UV_THREADPOOL_SIZE: '1' }), COUNT);
  });

  it('writes every line, in order, to a non-blocking stdout that fills (EAGAIN) before the flush that precedes the exit', async () => {
    // About 2 MB, several times what the pipe holds, while the test does not read for 300 ms.
    const count = 2_000;
    const child = start(['tests/helpers/log-then-end.ts', String(count), 'flush-nonblocking'], {}, true);
    await pause(300);
    child.resume();
    await expectEveryLine(child, count);
  });

  it('writes every line, in order, when lines keep coming while what a partial write left waits', async () => {
    // 20 lines a turn, about 4 MB in all, while the test does not read for 300 ms.
    const count = 4_000;
    const child = start(['tests/helpers/log-then-end.ts', String(count), 'trickle-nonblocking'], {}, true);
    await pause(300);
    child.resume();
    await expectEveryLine(child, count);
  });

  it('writes every line, in order, when the first write finds the pipe full and lines keep coming', async () => {
    const count = 2_000;
    const child = start(['tests/helpers/log-then-end.ts', String(count), 'full-then-trickle'], {}, true);
    await resumeWhen(child, () => child.stderr().includes('filled'), 'the child to fill its stdout', 100);
    await expectEveryLine(child, count);
  });

  it('keeps the exit code of a process.exit that comes while a flush waits for the reader', async () => {
    // The flush's callback exits 0; the process.exit(3) before it decides the code, and every
    // line is still written at exit (the test reads again within the second the exit waits).
    const count = 2_000;
    const child = start(['tests/helpers/log-then-end.ts', String(count), 'exit-while-flushing'], {}, true);
    await resumeWhen(child, () => child.stderr().includes('exiting'), 'the child to exit');
    await expectEveryLine(child, count, 3);
  });

  it('keeps the event loop running while the reader of stdout stalls with the pipe full', { timeout: 60_000 }, async () => {
    // The built program's destination, without the TypeScript loader (which opens stdout
    // itself): about 2 MB written in one loop turn while the test reads nothing; the child
    // reports on stderr from the next turn, which a write held by the full pipe would never reach.
    const count = 2_000;
    const child = start(['tests/helpers/log-then-stall.mjs', builtSvir().root, String(count)], {}, true);
    await resumeWhen(child, () => child.stderr().includes('loop alive'), 'the child to report its loop alive');
    await expectEveryLine(child, count);
  });

  it('writes a line soon while the process runs on, without a next line to push it out', async () => {
    const child = start(['tests/helpers/log-then-end.ts', '3', 'stay']);
    try {
      await until(() => lines(child.stdout()).length === 3, 'the 3 lines');
    } finally {
      child.kill('SIGKILL');
      await child.exited;
    }
  });
});

describe('svir (the program) on SIGTERM', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svir-log-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('has written the line of every request answered before it exits', async () => {
    const file = join(dir, 'svir.yaml');
    // No backend answers: svir serves /healthz and 404s all the same, one line per request.
    await writeFile(file, 'modelRefreshMs: 600000\nbackends:\n  - name: none\n    type: openai\n    url: http://127.0.0.1:9/v1\n');
    const child = start(['src/cli.ts', '--port', '0', '--host', '127.0.0.1'], { SVIR_CONFIG: file });
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(child.stderr()), 'svir to listen');
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(child.stderr())?.[1];
    const requests = 60;
    for (let i = 0; i < requests; i += 1) {
      const res = await fetch(`${base}${i % 2 === 0 ? '/healthz' : `/nowhere/${i}`}`);
      await res.arrayBuffer();
    }
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const requestLines = lines(child.stdout()).filter((line) => line.msg === 'request');
    expect(requestLines).toHaveLength(requests);
    expect(requestLines.filter((line) => line.status === 404)).toHaveLength(requests / 2);
  });
});
