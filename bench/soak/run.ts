/**
 * Soak: svir (in its own process) under mixed traffic for a configurable time, against two fake
 * upstreams (an `openai` and a `llamacpp` backend). The mix streams and does not, calls tools,
 * meets upstream errors (429, 500, context overflow, an error inside the stream, a reset in the
 * middle of a chunk) and clients that abort. Every answer is checked against a content hash
 * derived from its seed; every abort must reach the upstream socket.
 *
 * Reports requests served, outcomes by scenario, errors by kind (expected ones by code,
 * unexpected ones by what went wrong), answers with lost or changed bytes (must be 0), and
 * svir's memory over time (heap after GC: the last quarter within 10 % of the first).
 *
 *   node --import tsx bench/soak/run.ts --duration 600            # the 10-minute run
 *   node --import tsx bench/soak/run.ts --duration 30 --concurrency 16
 *   options: --duration S  --concurrency N  --warmup S  --sample-ms MS  --seed N
 *            --source src|dist  --log-level warn  --json FILE
 *
 * Exit code 0 when nothing unexpected happened, nothing was lost and memory stayed flat.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { startFaultUpstream, type FaultUpstream, type SocketRecord, type UpstreamRecord } from '../../tests/faults/fault-upstream.js';
import { parseCleanStream, readErrorBody } from '../../tests/faults/parse-clean-stream.js';
import { memoryTrend, type MemorySample } from './memory-trend.js';
import { seededRandom } from '../seeded-random.js';
import {
  SCENARIOS,
  pickScenario,
  readSoakPrompt,
  sha256,
  soakExpectation,
  soakRequest,
  soakScript,
  toolsDigest,
  type Expectation,
  type ScenarioName,
} from './soak-scenarios.js';

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '32' },
    warmup: { type: 'string', default: '5' },
    'sample-ms': { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    source: { type: 'string', default: 'src' },
    'log-level': { type: 'string', default: 'warn' },
    json: { type: 'string' },
  },
});

const settings = z
  .object({
    durationS: z.coerce.number().positive(),
    concurrency: z.coerce.number().int().positive(),
    warmupS: z.coerce.number().nonnegative(),
    sampleMs: z.coerce.number().int().positive(),
    seed: z.coerce.number().int(),
    source: z.enum(['src', 'dist']),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    json: z.string().optional(),
  })
  .parse({
    durationS: options.duration,
    concurrency: options.concurrency,
    warmupS: options.warmup,
    sampleMs: options['sample-ms'],
    seed: options.seed,
    source: options.source,
    logLevel: options['log-level'],
    json: options.json,
  });

/** How long an abort may take to reach the upstream socket before it counts as not propagated. */
const ABORT_PROPAGATION_LIMIT_MS = 1_000;
const MODELS = { openai: 'soak-a', llamacpp: 'soak-b' } as const;

interface Tally {
  served: number;
  byScenario: Record<string, { sent: number; asExpected: number }>;
  /** Errors the scenario asked for, by code. */
  expectedErrors: Record<string, number>;
  /** Everything else, by kind. */
  unexpected: Record<string, number>;
  unexpectedExamples: string[];
  /** Answers whose content or tool calls did not hash to what the upstream sent. */
  lostAnswers: number;
  checkedContentBytes: number;
  aborts: { count: number; propagated: number; worstCloseMs: number; closeMs: number[] };
}

const tally: Tally = {
  served: 0,
  byScenario: Object.fromEntries(SCENARIOS.map((name) => [name, { sent: 0, asExpected: 0 }])),
  expectedErrors: {},
  unexpected: {},
  unexpectedExamples: [],
  lostAnswers: 0,
  checkedContentBytes: 0,
  aborts: { count: 0, propagated: 0, worstCloseMs: 0, closeMs: [] },
};

/** A percentile of the abort-to-upstream-close times (nearest rank). */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function unexpected(kind: string, detail: string): void {
  tally.unexpected[kind] = (tally.unexpected[kind] ?? 0) + 1;
  if (tally.unexpectedExamples.length < 20) tally.unexpectedExamples.push(`${kind}: ${detail.slice(0, 300)}`);
}

/** Upstream records of client-abort requests, by seed, until the abort is checked. */
const abortRecords = new Map<number, UpstreamRecord>();
const abortWaiters = new Map<number, (record: UpstreamRecord) => void>();

function scriptFor(record: UpstreamRecord): ReturnType<typeof soakScript> {
  const prompt = readSoakPrompt(record.json);
  if (prompt === undefined) return { status: 400, body: '{"error":{"message":"not a soak request"}}' };
  if (prompt.name === 'client-abort') {
    abortRecords.set(prompt.seed, record);
    abortWaiters.get(prompt.seed)?.(record);
  }
  return soakScript(prompt.name, prompt.seed);
}

function upstreamRecordFor(seed: number, timeoutMs: number): Promise<UpstreamRecord | undefined> {
  const known = abortRecords.get(seed);
  if (known !== undefined) return Promise.resolve(known);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      abortWaiters.delete(seed);
      resolve(undefined);
    }, timeoutMs);
    abortWaiters.set(seed, (record) => {
      clearTimeout(timer);
      abortWaiters.delete(seed);
      resolve(record);
    });
  });
}

const plainAnswer = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullable().optional(),
          tool_calls: z
            .array(z.looseObject({ function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
            .optional(),
        }),
      }),
    )
    .length(1),
});

function checkAnswer(expectation: Extract<Expectation, { kind: 'answer' }>, status: number, text: string): boolean {
  if (status !== 200) {
    unexpected(`status-${status}`, text);
    return false;
  }
  let content: string;
  let calls: Array<{ name: string; arguments: string }>;
  if (expectation.stream) {
    const stream = parseCleanStream(text);
    if (stream.errors.length > 0) {
      unexpected(`error-event-${stream.errors[0]?.code ?? 'null'}`, stream.errors[0]?.message ?? '');
      return false;
    }
    if (stream.malformed.length > 0) {
      unexpected('malformed-frame', stream.malformed[0] ?? '');
      return false;
    }
    if (!stream.done || !stream.doneLast) {
      unexpected('missing-done', text.slice(-200));
      return false;
    }
    content = stream.content;
    calls = stream.toolCalls;
  } else {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      unexpected('plain-not-json', text);
      return false;
    }
    const parsed = plainAnswer.safeParse(json);
    if (!parsed.success) {
      unexpected('plain-bad-shape', text);
      return false;
    }
    const message = parsed.data.choices[0]?.message;
    content = message?.content ?? '';
    calls = (message?.tool_calls ?? []).map((call) => call.function);
  }
  if (sha256(content) !== expectation.contentSha256 || toolsDigest(calls) !== expectation.toolsSha256) {
    tally.lostAnswers += 1;
    unexpected('content-mismatch', `${content.slice(0, 120)} / ${JSON.stringify(calls).slice(0, 120)}`);
    return false;
  }
  tally.checkedContentBytes += expectation.contentBytes;
  return true;
}

function checkError(expectation: Extract<Expectation, { kind: 'error' }>, status: number, text: string): boolean {
  if (expectation.inStream) {
    const stream = parseCleanStream(text);
    const only = stream.errors.length === 1 ? stream.errors[0] : undefined;
    if (status !== 200 || only === undefined || stream.done || stream.framesAfterError > 0 || stream.malformed.length > 0) {
      unexpected('in-stream-error-shape', `status ${status}: ${text.slice(-300)}`);
      return false;
    }
    if (only.code !== expectation.code) {
      unexpected(`error-code-${only.code ?? 'null'}`, only.message);
      return false;
    }
    tally.expectedErrors[expectation.code] = (tally.expectedErrors[expectation.code] ?? 0) + 1;
    return true;
  }
  const body = readErrorBody(text);
  if (status !== expectation.status || body === undefined) {
    unexpected(`status-${status}`, text);
    return false;
  }
  if (body.code !== expectation.code) {
    unexpected(`error-code-${body.code ?? 'null'}`, body.message);
    return false;
  }
  tally.expectedErrors[expectation.code] = (tally.expectedErrors[expectation.code] ?? 0) + 1;
  return true;
}

async function runAbort(url: string, agent: Agent, seed: number, body: Record<string, unknown>): Promise<boolean> {
  const controller = new AbortController();
  const response = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  if (response.statusCode !== 200) {
    unexpected(`status-${response.statusCode}`, await response.body.text());
    return false;
  }
  let seen = '';
  for await (const piece of response.body) {
    seen += Buffer.isBuffer(piece) ? piece.toString('utf8') : String(piece);
    if (seen.includes('"content":"')) break;
  }
  const abortedAt = performance.now();
  controller.abort();
  await response.body.text().catch(() => undefined);
  tally.aborts.count += 1;
  const record = await upstreamRecordFor(seed, ABORT_PROPAGATION_LIMIT_MS);
  abortRecords.delete(seed);
  if (record === undefined) {
    unexpected('abort-no-upstream-request', `seed ${seed}`);
    return false;
  }
  const closedAt = await waitForClose(record.socket, ABORT_PROPAGATION_LIMIT_MS);
  if (closedAt === undefined) {
    unexpected('abort-not-propagated', `seed ${seed}: upstream socket still open after ${ABORT_PROPAGATION_LIMIT_MS} ms`);
    return false;
  }
  tally.aborts.propagated += 1;
  const closeMs = Math.max(0, closedAt - abortedAt);
  tally.aborts.worstCloseMs = Math.max(tally.aborts.worstCloseMs, closeMs);
  // Enough for percentiles without growing without bound over a long run.
  if (tally.aborts.closeMs.length < 100_000) tally.aborts.closeMs.push(closeMs);
  return true;
}

/** The socket's close time, or undefined when it is still open after `timeoutMs`. */
async function waitForClose(socket: SocketRecord, timeoutMs: number): Promise<number | undefined> {
  if (socket.closedAt !== undefined) return socket.closedAt;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([socket.closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function runOne(url: string, agent: Agent, name: ScenarioName, seed: number): Promise<void> {
  const model = seed % 2 === 0 ? MODELS.openai : MODELS.llamacpp;
  const body = soakRequest(name, seed, model);
  const expectation = soakExpectation(name, seed);
  const counts = tally.byScenario[name];
  if (counts !== undefined) counts.sent += 1;
  let ok = false;
  try {
    if (expectation.kind === 'abort') ok = await runAbort(url, agent, seed, body);
    else {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.body.text();
      ok =
        expectation.kind === 'answer'
          ? checkAnswer(expectation, response.statusCode, text)
          : checkError(expectation, response.statusCode, text);
    }
  } catch (error) {
    const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'unknown';
    unexpected(`transport-${code}`, error instanceof Error ? error.message : String(error));
  }
  tally.served += 1;
  if (ok && counts !== undefined) counts.asExpected += 1;
}

interface ChildHandle {
  port: number;
  sampleMemory(): Promise<Omit<MemorySample, 'atS'>>;
  stop(): Promise<void>;
}

const childMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), port: z.number() }),
  z.object({ type: z.literal('failed'), message: z.string() }),
  z.object({
    type: z.literal('memory'),
    id: z.number(),
    heapUsedBytes: z.number(),
    rssBytes: z.number(),
    externalBytes: z.number(),
  }),
]);

function startSvirChild(config: unknown): Promise<ChildHandle> {
  const childPath = fileURLToPath(new URL('./svir-child.ts', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', childPath, JSON.stringify({ config, source: settings.source })],
    // svir's log lines (stdout) are dropped: one per request would drown the report.
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  let nextId = 0;
  const pending = new Map<number, (sample: Omit<MemorySample, 'atS'>) => void>();
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`svir exited with ${code ?? 'a signal'} before it was ready`)));
    child.on('message', (raw) => {
      const parsed = childMessage.safeParse(raw);
      if (!parsed.success) return;
      const message = parsed.data;
      if (message.type === 'failed') reject(new Error(message.message));
      if (message.type === 'memory') {
        pending.get(message.id)?.({
          heapUsedBytes: message.heapUsedBytes,
          rssBytes: message.rssBytes,
          externalBytes: message.externalBytes,
        });
        pending.delete(message.id);
      }
      if (message.type === 'ready') {
        child.removeAllListeners('exit');
        resolve({
          port: message.port,
          sampleMemory: () =>
            new Promise((resolveSample) => {
              const id = nextId++;
              pending.set(id, resolveSample);
              child.send({ type: 'memory', id });
            }),
          stop: () =>
            new Promise((resolveStop) => {
              child.once('exit', () => resolveStop());
              child.send({ type: 'exit' });
            }),
        });
      }
    });
  });
}

function mib(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  const openaiUpstream = await startFaultUpstream({ models: [MODELS.openai], maxRecords: 2_000, script: scriptFor });
  const llamacppUpstream = await startFaultUpstream({ models: [MODELS.llamacpp], maxRecords: 2_000, script: scriptFor });
  const upstreams: FaultUpstream[] = [openaiUpstream, llamacppUpstream];
  const backend = (name: string, type: string, url: string, model: string): Record<string, unknown> => ({
    name,
    type,
    url,
    models: [model],
    maxConcurrent: settings.concurrency * 2,
    maxQueue: settings.concurrency * 4,
    timeouts: { connectMs: 2_000, firstTokenMs: 10_000, idleMs: 10_000 },
  });
  const config = {
    server: { host: '127.0.0.1', port: 0, logLevel: settings.logLevel, keepaliveMs: 0 },
    backends: [
      backend('soak-openai', 'openai', openaiUpstream.url, MODELS.openai),
      backend('soak-llamacpp', 'llamacpp', llamacppUpstream.url, MODELS.llamacpp),
    ],
  };
  const svir = await startSvirChild(config);
  const url = `http://127.0.0.1:${svir.port}/v1/chat/completions`;
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: settings.concurrency * 2 });

  const started = performance.now();
  const warmupEnds = started + settings.warmupS * 1_000;
  const deadline = warmupEnds + settings.durationS * 1_000;
  const random = seededRandom(settings.seed);
  let nextSeed = settings.seed * 1_000_000;
  const samples: MemorySample[] = [];

  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((resolve) => setTimeout(resolve, settings.sampleMs));
      const now = performance.now();
      if (now < warmupEnds || now > deadline) continue;
      const sample = await svir.sampleMemory();
      samples.push({ atS: (now - warmupEnds) / 1_000, ...sample });
    }
  })();

  let lastProgress = started;
  const workers = Array.from({ length: settings.concurrency }, async () => {
    while (performance.now() < deadline) {
      await runOne(url, agent, pickScenario(random), nextSeed++);
      const now = performance.now();
      if (now - lastProgress > 10_000) {
        lastProgress = now;
        const unexpectedCount = Object.values(tally.unexpected).reduce((sum, n) => sum + n, 0);
        const heap = samples.at(-1)?.heapUsedBytes;
        process.stderr.write(
          `soak ${((now - started) / 1_000).toFixed(0)} s: ${tally.served} served, ${unexpectedCount} unexpected, ` +
            `${tally.lostAnswers} lost, heap ${heap === undefined ? '-' : mib(heap)}\n`,
        );
      }
    }
  });
  await Promise.all(workers);
  sampling = false;
  await sampler;
  const elapsedS = (performance.now() - started) / 1_000;

  await svir.stop();
  await agent.close();
  for (const upstream of upstreams) await upstream.close();

  const trend = memoryTrend(samples);
  const unexpectedTotal = Object.values(tally.unexpected).reduce((sum, n) => sum + n, 0);
  const passed = unexpectedTotal === 0 && tally.lostAnswers === 0 && trend !== undefined && trend.withinTolerance;
  const report = {
    settings,
    elapsedS,
    requestsServed: tally.served,
    requestsPerSecond: tally.served / elapsedS,
    byScenario: tally.byScenario,
    expectedErrorsByCode: tally.expectedErrors,
    unexpectedByKind: tally.unexpected,
    unexpectedExamples: tally.unexpectedExamples,
    lostAnswers: tally.lostAnswers,
    checkedContentBytes: tally.checkedContentBytes,
    aborts: {
      count: tally.aborts.count,
      propagated: tally.aborts.propagated,
      closeMsP50: percentile(tally.aborts.closeMs, 50),
      closeMsP99: percentile(tally.aborts.closeMs, 99),
      closeMsMax: tally.aborts.worstCloseMs,
    },
    memory: { trend, samples },
    passed,
  };
  if (settings.json !== undefined) writeFileSync(settings.json, `${JSON.stringify(report, null, 2)}\n`);

  const lines = [
    `svir soak: ${settings.durationS} s measured after ${settings.warmupS} s warm-up, ${settings.concurrency} clients, source ${settings.source}`,
    `requests served: ${tally.served} (${report.requestsPerSecond.toFixed(0)}/s)`,
    ...SCENARIOS.map((name) => {
      const counts = tally.byScenario[name];
      return `  ${name.padEnd(18)} ${String(counts?.sent ?? 0).padStart(8)} sent ${String(counts?.asExpected ?? 0).padStart(8)} as expected`;
    }),
    `expected errors by code: ${JSON.stringify(tally.expectedErrors)}`,
    `unexpected by kind: ${unexpectedTotal === 0 ? 'none' : JSON.stringify(tally.unexpected)}`,
    ...tally.unexpectedExamples.slice(0, 5).map((example) => `  e.g. ${example}`),
    `answers with lost or changed bytes: ${tally.lostAnswers} (of ${mib(tally.checkedContentBytes)} of content checked)`,
    `client aborts: ${tally.aborts.count}, reached the upstream socket: ${tally.aborts.propagated} ` +
      `(abort → upstream close p50 ${percentile(tally.aborts.closeMs, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(tally.aborts.closeMs, 99).toFixed(1)} ms, max ${tally.aborts.worstCloseMs.toFixed(1)} ms)`,
    trend === undefined
      ? `memory: too few samples (${samples.length}) to compare quarters`
      : `memory (svir heap after GC): first quarter ${mib(trend.firstQuarterHeapMean)}, last quarter ${mib(trend.lastQuarterHeapMean)}, ` +
        `growth ${(trend.heapGrowth * 100).toFixed(1)} % (limit 10 %); rss ${mib(trend.firstQuarterRssMean)} → ${mib(trend.lastQuarterRssMean)}`,
    passed ? 'PASS' : 'FAIL',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = passed ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
