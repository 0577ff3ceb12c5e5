/**
 * Memory per open stream: a fresh server (after a short warm-up) at idle, then N concurrent slow
 * streams (1,000 by default; the mock paces its chunks, 250 ms apart by default, so every stream
 * stays open for some 16 s): the kernel's peak RSS (VmHWM, reset at idle and read from outside)
 * over the idle RSS, divided by N. Measured the same way for the pass-through (the floor: fastify +
 * @fastify/http-proxy), svir's chat route, svir's Responses route when the build has it, and for
 * comparison the plain node:http pass-through and Portkey's gateway, one server at a time.
 *
 * The streams are only counted as concurrent if they were: the largest number open at once
 * (first body byte received, end not yet) is reported next to N.
 *
 * Standalone: `node --import tsx bench/open-streams.ts [--streams 1000] [--stream-delay 250]`.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { readOptions, type Comparison } from './options.js';
import { portkeyChatRoute } from './portkey.js';
import { BARE_NODE, PASS_THROUGH, PORTKEY, SVIR_RESPONSES } from './report.js';
import { CHAT_ROUTE, RESPONSES_ROUTE, type BenchRoute } from './routes.js';
import { spawnTarget, type TargetProcess } from './target-process.js';

export interface OpenStreamsMeasure {
  route: BenchRoute['name'];
  streams: number;
  /** The most streams that were open at the same moment. */
  maxOpen: number;
  idleRssBytes: number;
  peakRssBytes: number;
  /** (peak − idle) ÷ streams. */
  perStreamBytes: number;
  peakSource: 'vmhwm-reset' | 'maxrss';
  /** Streams that did not end as a whole answer with status 200. */
  failed: number;
  /** Seconds from the first request to the last stream's end. */
  seconds: number;
  /** Connections or lookups beyond loopback the process tried and was refused (Portkey's guard). */
  networkRefusals: number;
}

export interface OpenStreamsResult {
  streams: number;
  chunkDelayMs: number;
  chunks: number;
  /** By target name: `pass-through`, `svir-openai`, `svir-responses` (absent: the build has no such route), `bare-node`, `portkey`. */
  targets: Record<string, OpenStreamsMeasure>;
  /**
   * The floor and `svir-openai` again, each stream's client pausing once it has the headers and
   * reading the rest only after the answer's whole pacing (chunks × delay) and 2 s more.
   */
  paused?: Record<string, OpenStreamsMeasure>;
  pausedForMs?: number;
}

interface OneStream {
  /** Resolves when the first body byte arrived (or the stream failed). */
  opened: Promise<void>;
  ended: Promise<boolean>;
}

/**
 * One stream. `pauseMs`: a client that stops reading once it has the headers and reads the rest
 * only after that long (a paused slow stream); it counts as open from its headers.
 */
function openStream(port: number, route: BenchRoute, agent: Agent, onOpen: () => void, onEnd: () => void, pauseMs?: number): OneStream {
  let markOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    markOpened = resolve;
  });
  const ended = new Promise<boolean>((resolve) => {
    let open = false;
    const finish = (ok: boolean): void => {
      if (open) onEnd();
      open = false;
      markOpened();
      resolve(ok);
    };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: route.path,
        agent,
        headers: {
          ...route.headers,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(route.body),
        },
      },
      (res) => {
        let text = '';
        if (pauseMs !== undefined) {
          open = true;
          onOpen();
          markOpened();
          res.pause();
          setTimeout(() => res.resume(), pauseMs);
        }
        res.on('data', (chunk: Buffer) => {
          if (text === '' && !open) {
            open = true;
            onOpen();
            markOpened();
          }
          text += chunk.toString('latin1');
        });
        res.on('end', () => finish(res.statusCode === 200 && route.complete(text)));
        res.on('error', () => finish(false));
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error('stream timed out')));
    req.on('error', () => finish(false));
    req.end(route.body);
  });
  return { opened, ended };
}

/** `count` streams at once; the most that were open together, and how many failed. */
async function runStreams(port: number, route: BenchRoute, count: number, pauseMs?: number): Promise<{ maxOpen: number; failed: number }> {
  // One connection per stream, as that many separate clients would have.
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  let open = 0;
  let maxOpen = 0;
  try {
    const streams: OneStream[] = [];
    for (let i = 0; i < count; i++) {
      streams.push(
        openStream(
          port,
          route,
          agent,
          () => {
            open += 1;
            if (open > maxOpen) maxOpen = open;
          },
          () => {
            open -= 1;
          },
          pauseMs,
        ),
      );
    }
    const results = await Promise.all(streams.map((s) => s.ended));
    return { maxOpen, failed: results.filter((ok) => !ok).length };
  } finally {
    agent.destroy();
  }
}

/** Whether the server has this route at all (an older build of svir has no Responses route). */
export async function hasRoute(port: number, route: BenchRoute): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}${route.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: route.body,
  });
  // The answer is not waited for: the mock paces it.
  await res.body?.cancel();
  return res.status === 200;
}

export async function measureOpenStreams(target: TargetProcess, route: BenchRoute, streams: number, pauseMs?: number): Promise<OpenStreamsMeasure> {
  // Warm-up: the code paths compiled and the pools made, as on a server that has served before.
  await runStreams(target.port, route, Math.min(50, streams));
  await sleep(1_000);
  const idle = await target.stats();
  const reset = await target.resetPeakRss();
  const started = Date.now();
  const { maxOpen, failed } = await runStreams(target.port, route, streams, pauseMs);
  const seconds = (Date.now() - started) / 1000;
  const hwm = reset ? await target.peakRss() : undefined;
  const peak = hwm ?? (await target.stats()).maxRssBytes;
  return {
    route: route.name,
    streams,
    maxOpen,
    idleRssBytes: idle.rssBytes,
    peakRssBytes: peak,
    perStreamBytes: Math.max(0, peak - idle.rssBytes) / streams,
    peakSource: hwm === undefined ? 'maxrss' : 'vmhwm-reset',
    failed,
    seconds,
    networkRefusals: target.networkRefusals(),
  };
}

export async function runOpenStreamsBench(options: {
  streams: number;
  chunkDelayMs: number;
  chunks: number;
  svirFrom: 'dist' | 'src';
  svirEntry?: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Comparison targets measured after svir's. */
  compare: readonly Comparison[];
}): Promise<OpenStreamsResult> {
  const maxLifetimeMs = 600_000;
  const mock = await spawnTarget(
    'mock',
    { kind: 'serve', spec: { role: 'mock', delayMs: options.chunkDelayMs, chunks: options.chunks, reasoning: 'off', toolCalls: false, usage: true } },
    { maxLifetimeMs },
  );
  const started: TargetProcess[] = [mock];
  const targets: Record<string, OpenStreamsMeasure> = {};
  const svirLaunch = {
    kind: 'svir',
    backendType: 'openai',
    upstream: `http://127.0.0.1:${mock.port}/v1/`,
    source: options.svirFrom,
    entry: options.svirEntry,
    logLevel: options.logLevel,
  } as const;
  try {
    // A fresh process for each measure: the idle figure is the server's own, not what an
    // earlier measure left behind.
    const origin = `http://127.0.0.1:${mock.port}`;
    const plan: [string, () => Promise<TargetProcess>, BenchRoute][] = [
      [PASS_THROUGH, () => spawnTarget(PASS_THROUGH, { kind: 'serve', spec: { role: 'pass-through', upstream: origin } }, { maxLifetimeMs }), CHAT_ROUTE],
      ['svir-openai', () => spawnTarget('svir-openai', svirLaunch, { maxLifetimeMs }), CHAT_ROUTE],
      [SVIR_RESPONSES, () => spawnTarget(SVIR_RESPONSES, svirLaunch, { maxLifetimeMs }), RESPONSES_ROUTE],
    ];
    if (options.compare.includes('bare-node')) {
      plan.push([BARE_NODE, () => spawnTarget(BARE_NODE, { kind: 'serve', spec: { role: 'bare-node', upstream: origin } }, { maxLifetimeMs }), CHAT_ROUTE]);
    }
    if (options.compare.includes('portkey')) {
      plan.push([PORTKEY, () => spawnTarget(PORTKEY, { kind: 'portkey' }, { maxLifetimeMs }), portkeyChatRoute(origin)]);
    }
    const pausedForMs = options.chunks * options.chunkDelayMs + 2_000;
    const paused: Record<string, OpenStreamsMeasure> = {};
    const pausedPlan = plan.filter(([name]) => name === PASS_THROUGH || name === 'svir-openai').map(([name, spawn, route]) => [name, spawn, route, true] as const);
    for (const [name, spawn, route, pause] of [...plan.map(([name, spawn, route]) => [name, spawn, route, false] as const), ...pausedPlan]) {
      const target = await spawn();
      started.push(target);
      try {
        if (route === RESPONSES_ROUTE && !(await hasRoute(target.port, route))) {
          process.stderr.write(`open streams: ${name} skipped (no ${route.path} in this build)\n`);
          continue;
        }
        process.stderr.write(`open streams: ${name}, ${options.streams} at once${pause ? ', paused after the headers' : ''}\n`);
        if (pause) paused[name] = await measureOpenStreams(target, route, options.streams, pausedForMs);
        else targets[name] = await measureOpenStreams(target, route, options.streams);
      } finally {
        await target.stop();
      }
    }
    return { streams: options.streams, chunkDelayMs: options.chunkDelayMs, chunks: options.chunks, targets, paused, pausedForMs };
  } finally {
    await Promise.all(started.map((t) => t.stop()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options = readOptions(process.argv.slice(2), process.env);
  const result = await runOpenStreamsBench({
    streams: options.streams,
    chunkDelayMs: options.streamDelayMs,
    chunks: options.chunks,
    svirFrom: options.svirFrom,
    svirEntry: options.svirEntry,
    logLevel: options.logLevel,
    compare: options.compare,
  });
  console.log(JSON.stringify(result, null, 2));
}
