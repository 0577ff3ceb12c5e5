/**
 * Memory: peak RSS of a svir process while it forwards one request whose body is a large base64
 * image (50 MB by default), against the body size; and its idle RSS after start. The
 * pass-through is measured alongside as the floor (it streams the body and holds none of it).
 *
 * The peak is the kernel's (VmHWM, reset through /proc/<pid>/clear_refs just before the request)
 * and read from outside the process, so it holds even while svir's event loop is busy parsing.
 * Where that reset is refused, the process's maxRSS since start is used (an upper bound).
 *
 * Standalone: `node --import tsx bench/memory-50mb.ts [--memory-mb 50] [--svir-from src]`.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { readOptions } from './options.js';
import { BENCH_MODEL } from './svir-config.js';
import { spawnTarget, type TargetProcess } from './target-process.js';

export interface ProcessMemory {
  /** RSS a second after start, before any request. */
  idleRssBytes: number;
  rssBeforeBytes: number;
  peakRssBytes: number;
  growthBytes: number;
  /** growth ÷ body size. */
  growthRatio: number;
  /** RSS two seconds after the response ended. */
  idleAfterRssBytes: number;
  /** How the peak was read: `vmhwm-reset` (exact) or `maxrss` (peak since start: an upper bound). */
  peakSource: 'vmhwm-reset' | 'maxrss';
  status: number;
  ok: boolean;
  detail: string;
}

export interface MemoryResult {
  bodyMb: number;
  bodyBytes: number;
  svir: ProcessMemory;
  passThrough: ProcessMemory;
}

/** A chat request with one text part and one PNG data URL, `totalBytes` long in all. */
export function imageRequestBody(totalBytes: number): Buffer {
  const head = JSON.stringify({
    model: BENCH_MODEL,
    stream: true,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,@' } },
        ],
      },
    ],
  });
  const [before, after] = head.split('@');
  if (before === undefined || after === undefined) throw new Error('image body template');
  const dataChars = Math.max(4, Math.floor((totalBytes - before.length - after.length) / 4) * 4);
  // Random bytes, so the base64 looks like a real picture's (nothing repeats to be shared).
  const data = randomBytes((dataChars / 4) * 3).toString('base64');
  return Buffer.concat([Buffer.from(before), Buffer.from(data), Buffer.from(after)]);
}

function send(port: number, body: Buffer): Promise<{ status: number; tail: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        let tail = '';
        res.on('data', (chunk: Buffer) => {
          tail = (tail + chunk.toString('latin1')).slice(-200);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, tail }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('image request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(target: TargetProcess, body: Buffer): Promise<ProcessMemory> {
  await sleep(1_000);
  const idle = await target.stats();
  const reset = await target.resetPeakRss();
  const before = await target.stats();

  let status = 0;
  let detail = '';
  try {
    const answer = await send(target.port, body);
    status = answer.status;
    detail = answer.tail.endsWith('data: [DONE]\n\n') ? '' : answer.tail.trim().slice(-160);
  } catch (error) {
    detail = error instanceof Error ? error.message : String(error);
  }

  const after = await target.stats();
  const hwm = reset ? await target.peakRss() : undefined;
  const peak = hwm ?? after.maxRssBytes;
  await sleep(2_000);
  const settled = await target.stats();
  const growth = Math.max(0, peak - before.rssBytes);
  return {
    idleRssBytes: idle.rssBytes,
    rssBeforeBytes: before.rssBytes,
    peakRssBytes: peak,
    growthBytes: growth,
    growthRatio: growth / body.length,
    idleAfterRssBytes: settled.rssBytes,
    peakSource: hwm !== undefined ? 'vmhwm-reset' : 'maxrss',
    status,
    ok: status === 200 && detail === '',
    detail: detail === '' && status !== 200 ? `status ${status}` : detail,
  };
}

export async function runMemoryBench(options: {
  bodyMb: number;
  svirFrom: 'dist' | 'src';
  svirEntry?: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}): Promise<MemoryResult> {
  const bodyBytes = Math.round(options.bodyMb * 1024 * 1024);
  const body = imageRequestBody(bodyBytes);
  const maxLifetimeMs = 180_000;
  const mock = await spawnTarget(
    'mock',
    { kind: 'serve', spec: { role: 'mock', delayMs: 0, chunks: 64, reasoning: 'off', toolCalls: false, usage: true } },
    { maxLifetimeMs },
  );
  const started: TargetProcess[] = [mock];
  try {
    // Fresh processes: the idle figure is svir's own after start, not after a load run.
    const svir = await spawnTarget(
      'svir-openai',
      {
        kind: 'svir',
        backendType: 'openai',
        upstream: `http://127.0.0.1:${mock.port}/v1/`,
        source: options.svirFrom,
        entry: options.svirEntry,
        logLevel: options.logLevel,
      },
      { maxLifetimeMs },
    );
    started.push(svir);
    const pass = await spawnTarget('pass-through', { kind: 'serve', spec: { role: 'pass-through', upstream: `http://127.0.0.1:${mock.port}` } }, { maxLifetimeMs });
    started.push(pass);
    const svirMemory = await measure(svir, body);
    const passMemory = await measure(pass, body);
    return { bodyMb: options.bodyMb, bodyBytes: body.length, svir: svirMemory, passThrough: passMemory };
  } finally {
    await Promise.all(started.map((t) => t.stop()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options = readOptions(process.argv.slice(2), process.env);
  const result = await runMemoryBench({
    bodyMb: options.memoryBodyMb,
    svirFrom: options.svirFrom,
    svirEntry: options.svirEntry,
    logLevel: options.logLevel,
  });
  console.log(JSON.stringify(result, null, 2));
}
