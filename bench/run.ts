/**
 * `npm run bench`: every benchmark of issues 8 and 15 in one run, each server in a child process
 * of its own (CPU time and RSS are read from inside each), load runs interleaved A B C D / D C B
 * A so the machine's drift cancels, then the table and the JSON in bench/results/.
 *
 * Targets: the mock directly (`direct`), the floor (`pass-through`: fastify + @fastify/http-proxy,
 * as issue 15 names it), svir with the mock as an `openai` backend and as a `llamacpp` backend,
 * svir's Responses route when the build has it, and for comparison (`--compare`) the plain
 * node:http + undici pass-through (`bare-node`) and Portkey's gateway (`portkey`). Loopback
 * only; every child exits by itself after a bounded lifetime, and a watchdog ends the whole run
 * if it overstays.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runLoad } from './load.js';
import { runMemoryBench, type MemoryResult } from './memory-50mb.js';
import { runNormalizerBench, type NormalizerResult } from './normalizer.js';
import { hasRoute, runOpenStreamsBench, type OpenStreamsResult } from './open-streams.js';
import { readOptions, type BenchOptions } from './options.js';
import { startBenchRedis, type BenchRedis } from './redis-server.js';
import { packageVersions } from './package-versions.js';
import { portkeyChatRoute } from './portkey.js';
import {
  APART,
  BARE_NODE,
  buildReport,
  CANDIDATE,
  CONTRACT_MINIMUM,
  DIRECT,
  floorBeside,
  formatReport,
  PASS_THROUGH,
  PORTKEY,
  SVIR_CLUSTER,
  SVIR_MESSAGES,
  SVIR_RESPONSES,
  writeReport,
  type LoadSummary,
} from './report.js';
import { CHAT_ROUTE, MESSAGES_ROUTE, RESPONSES_ROUTE, type BenchRoute } from './routes.js';
import { cpuPerRequest, median, runSequential, type SequentialResult } from './sequential.js';
import type { LoadResult } from './load.js';
import { formatSideBySide, summarizeSideBySide, type SideBySideResult, type SideBySideRound } from './side-by-side.js';
import { spawnTarget, type TargetProcess } from './target-process.js';

/** A load target: a server process and the route its requests go to. */
interface Target {
  process: TargetProcess;
  route: BenchRoute;
}

/** Load targets by name, in their order of the first round. */
type Targets = Map<string, Target>;

/** The comparison targets of the streams section: none in a quick run (each costs some 35 s there). */
const streamsCompare = (o: BenchOptions): BenchOptions['compare'] => (o.quick ? [] : o.compare);

const isApart = (name: string): boolean => APART.some((apart) => apart === name);

/** A generous bound on the whole run, from its settings: past it the run is stopped. */
function budgetMs(o: BenchOptions): number {
  const count = 5 + o.compare.length + (o.candidate === undefined ? 0 : 2) + (o.redis ? 1 : 0);
  const load = o.sections.includes('load') ? (o.rounds + 1) * count * (o.durationS + o.preRollS + 5) * 1000 : 0;
  const seq = o.sections.includes('sequential') ? (o.samples + o.warmup) * count * 100 : 0;
  const micro = o.sections.includes('normalizer') ? o.microS * 3 * 4 * 1000 + 30_000 : 0;
  const memory = o.sections.includes('memory') ? 120_000 : 0;
  const streams = o.sections.includes('streams') ? (5 + streamsCompare(o).length) * (60_000 + o.chunks * o.streamDelayMs * 2) : 0;
  return 60_000 + load + seq + micro + memory + streams;
}

async function startLoadTargets(o: BenchOptions, maxLifetimeMs: number, started: TargetProcess[], redis: BenchRedis | undefined): Promise<Targets> {
  const cpuProfDir = o.profile ? join(o.resultsDir, 'profiles') : undefined;
  if (cpuProfDir !== undefined) await mkdir(cpuProfDir, { recursive: true });
  const mock = await spawnTarget(
    'mock',
    { kind: 'serve', spec: { role: 'mock', delayMs: o.delayMs, chunks: o.chunks, reasoning: o.reasoning, toolCalls: o.toolCalls, usage: true } },
    { maxLifetimeMs },
  );
  started.push(mock);
  const origin = `http://127.0.0.1:${mock.port}`;
  const pass = await spawnTarget(PASS_THROUGH, { kind: 'serve', spec: { role: 'pass-through', upstream: origin } }, { maxLifetimeMs, cpuProfDir });
  started.push(pass);
  const bare = o.compare.includes('bare-node')
    ? await spawnTarget(BARE_NODE, { kind: 'serve', spec: { role: 'bare-node', upstream: origin } }, { maxLifetimeMs, cpuProfDir })
    : undefined;
  if (bare !== undefined) started.push(bare);
  const minimum = o.compare.includes('contract-minimum')
    ? await spawnTarget(CONTRACT_MINIMUM, { kind: 'serve', spec: { role: 'contract-minimum', upstream: origin } }, { maxLifetimeMs, cpuProfDir })
    : undefined;
  if (minimum !== undefined) started.push(minimum);
  const svirProcess = (
    name: string,
    backendType: 'openai' | 'llamacpp',
    entry: string | undefined,
    source: BenchOptions['svirFrom'],
    redisUrl?: string,
  ): Promise<TargetProcess> =>
    spawnTarget(
      name,
      {
        kind: 'svir',
        backendType,
        upstream: backendType === 'openai' ? `${origin}/v1/` : `${origin}/llamacpp/v1/`,
        source,
        entry,
        logLevel: o.logLevel,
        redis: redisUrl,
      },
      { maxLifetimeMs, cpuProfDir },
    );
  const svirOpenai = await svirProcess('svir-openai', 'openai', o.svirEntry, o.svirFrom);
  started.push(svirOpenai);
  // The candidate next to the build it is compared with: started right after it, measured right
  // after it in the first round (right before it in the next), alike in everything but the build.
  const candidate = o.candidate === undefined ? undefined : await svirProcess(CANDIDATE, 'openai', o.candidate, 'dist');
  if (candidate !== undefined) started.push(candidate);
  // svir with cluster.redis (--redis): the shared limit's lease per request, beside svir-openai.
  const svirCluster = redis === undefined ? undefined : await svirProcess(SVIR_CLUSTER, 'openai', o.svirEntry, o.svirFrom, redis.url);
  if (svirCluster !== undefined) started.push(svirCluster);
  const svirLlamacpp = await svirProcess('svir-llamacpp', 'llamacpp', o.svirEntry, o.svirFrom);
  started.push(svirLlamacpp);
  // The Responses route in a process of its own, the mock as an `openai` backend: its CPU time
  // is its own, and svir-openai's process serves the chat route alone, as the candidate's does
  // (a process that had also served the Responses turns would not be compared like with like).
  const svirResponses = await svirProcess(SVIR_RESPONSES, 'openai', o.svirEntry, o.svirFrom);
  started.push(svirResponses);
  const targets: Targets = new Map([
    [DIRECT, { process: mock, route: CHAT_ROUTE }],
    [PASS_THROUGH, { process: pass, route: CHAT_ROUTE }],
  ]);
  if (bare !== undefined) targets.set(BARE_NODE, { process: bare, route: CHAT_ROUTE });
  if (minimum !== undefined) targets.set(CONTRACT_MINIMUM, { process: minimum, route: CHAT_ROUTE });
  targets.set('svir-openai', { process: svirOpenai, route: CHAT_ROUTE });
  if (candidate !== undefined) targets.set(CANDIDATE, { process: candidate, route: CHAT_ROUTE });
  if (svirCluster !== undefined) targets.set(SVIR_CLUSTER, { process: svirCluster, route: CHAT_ROUTE });
  targets.set('svir-llamacpp', { process: svirLlamacpp, route: CHAT_ROUTE });
  // A build without the Responses route leaves it out.
  if (await hasRoute(svirResponses.port, RESPONSES_ROUTE)) targets.set(SVIR_RESPONSES, { process: svirResponses, route: RESPONSES_ROUTE });
  else {
    process.stderr.write(`${SVIR_RESPONSES}: not measured (no ${RESPONSES_ROUTE.path} in this build)\n`);
    await svirResponses.stop();
  }
  // The Messages route likewise, in a process of its own (its CPU per request beside svir-openai's is issue 21's figure).
  const svirMessages = await svirProcess(SVIR_MESSAGES, 'openai', o.svirEntry, o.svirFrom);
  started.push(svirMessages);
  if (await hasRoute(svirMessages.port, MESSAGES_ROUTE)) targets.set(SVIR_MESSAGES, { process: svirMessages, route: MESSAGES_ROUTE });
  else {
    process.stderr.write(`${SVIR_MESSAGES}: not measured (no ${MESSAGES_ROUTE.path} in this build)\n`);
    await svirMessages.stop();
  }
  if (o.compare.includes('portkey')) {
    const portkey = await spawnTarget(PORTKEY, { kind: 'portkey' }, { maxLifetimeMs, cpuProfDir });
    started.push(portkey);
    targets.set(PORTKEY, { process: portkey, route: portkeyChatRoute(origin) });
  }
  return targets;
}

const cpuUs = (s: { userUs: number; systemUs: number }): number => s.userUs + s.systemUs;

/** Warm-up under load: the JIT and the connection pools, not measured. */
async function warmUp(o: BenchOptions, targets: Targets): Promise<void> {
  for (const [name, target] of targets) {
    process.stderr.write(`warm-up ${name}\n`);
    await runLoad({ port: target.process.port, route: target.route, connections: o.connections, durationS: Math.min(2, o.durationS) });
  }
}

async function loadSection(o: BenchOptions, targets: Targets, mock: TargetProcess): Promise<Record<string, LoadSummary>> {
  const names = [...targets.keys()];
  const runs = new Map<string, { results: LoadResult[]; cpuUs: number; mockCpuUs: number }>(
    names.map((t) => [t, { results: [], cpuUs: 0, mockCpuUs: 0 }]),
  );
  for (let round = 0; round < o.rounds; round++) {
    const order = round % 2 === 0 ? [...names] : [...names].reverse();
    for (const name of order) {
      const target = targets.get(name);
      const run = runs.get(name);
      if (target === undefined || run === undefined) continue;
      // Every measured run starts from the same state, however long its process sat idle before
      // (a process that had idled for 15 s paid some 35 % more CPU per request in its next 2 s
      // of load than in the 2 s after: a target measured after a long wait read worse).
      if (o.preRollS > 0) await runLoad({ port: target.process.port, route: target.route, connections: o.connections, durationS: o.preRollS });
      const before = await target.process.stats();
      const mockBefore = await mock.stats();
      const result = await runLoad({ port: target.process.port, route: target.route, connections: o.connections, durationS: o.durationS });
      const after = await target.process.stats();
      const mockAfter = await mock.stats();
      run.results.push(result);
      run.cpuUs += cpuUs(after) - cpuUs(before);
      run.mockCpuUs += cpuUs(mockAfter) - cpuUs(mockBefore);
      process.stderr.write(
        `round ${round + 1}/${o.rounds} ${name}: ${result.requestsPerSec.toFixed(0)} req/s, p99 ${result.latencyP99Ms} ms` +
          `${result.errors + result.non2xx + result.mismatches > 0 ? `, ${result.errors} errors, ${result.non2xx} non-2xx, ${result.mismatches} bad bodies` : ''}\n`,
      );
    }
  }
  const out: Record<string, LoadSummary> = {};
  for (const name of names) {
    const target = targets.get(name);
    const run = runs.get(name);
    if (target === undefined || run === undefined) continue;
    const completed = run.results.reduce((sum, r) => sum + r.completed, 0);
    const stats = await target.process.stats();
    out[name] = {
      rounds: run.results,
      requestsPerSec: median(run.results.map((r) => r.requestsPerSec)),
      latencyP50Ms: median(run.results.map((r) => r.latencyP50Ms)),
      latencyP99Ms: median(run.results.map((r) => r.latencyP99Ms)),
      cpuUsPerRequest: completed === 0 ? Number.NaN : run.cpuUs / completed,
      // For `direct` the target is the mock itself.
      upstreamCpuUsPerRequest: completed === 0 ? Number.NaN : run.mockCpuUs / completed,
      rssAfterLoadBytes: stats.rssBytes,
      failures: run.results.reduce((sum, r) => sum + r.errors + r.non2xx + r.mismatches, 0),
    };
  }
  return out;
}

/**
 * The candidate and svir-openai under load at the same time, `rounds` times (side-by-side.ts):
 * a pre-roll of both together, then both measured over the same seconds.
 */
async function sideBySideSection(o: BenchOptions, base: Target, candidate: Target): Promise<SideBySideResult> {
  const rounds: SideBySideRound[] = [];
  for (let round = 0; round < o.rounds; round++) {
    // Who starts its clients first alternates from round to round.
    const pair = round % 2 === 0 ? [base, candidate] : [candidate, base];
    const both = (durationS: number): Promise<LoadResult[]> =>
      Promise.all(pair.map((t) => runLoad({ port: t.process.port, route: t.route, connections: o.connections, durationS })));
    const cpuOfBoth = (): Promise<number[]> => Promise.all(pair.map(async (t) => cpuUs(await t.process.stats())));
    if (o.preRollS > 0) await both(o.preRollS);
    const before = await cpuOfBoth();
    const results = await both(o.durationS);
    const after = await cpuOfBoth();
    const measured: SideBySideRound = {
      cpuUs: Object.fromEntries(pair.map((t, i) => [t.process.name, (after[i] ?? 0) - (before[i] ?? 0)])),
      completed: Object.fromEntries(pair.map((t, i) => [t.process.name, results[i]?.completed ?? 0])),
      durationS: Math.min(...results.map((r) => r.durationS)),
    };
    rounds.push(measured);
    const line = formatSideBySide(summarizeSideBySide(base.process.name, candidate.process.name, o.connections, [measured]))[1] ?? '';
    process.stderr.write(`side by side ${round + 1}/${o.rounds}: ${line.trim()}\n`);
  }
  return summarizeSideBySide(base.process.name, candidate.process.name, o.connections, rounds);
}

async function main(): Promise<void> {
  const o = readOptions(process.argv.slice(2), process.env);
  const started: TargetProcess[] = [];
  const watchdog = setTimeout(() => {
    console.error(`benchmark overstayed its budget of ${Math.round(budgetMs(o) / 1000)} s: stopping`);
    void Promise.all(started.map((t) => t.stop())).finally(() => process.exit(1));
  }, budgetMs(o));
  watchdog.unref();
  const maxLifetimeMs = budgetMs(o) + 10_000;

  let load: Record<string, LoadSummary> | undefined;
  let sequential: Record<string, SequentialResult> | undefined;
  let normalizer: NormalizerResult | undefined;
  let memory: MemoryResult | undefined;
  let openStreams: OpenStreamsResult | undefined;
  let sideBySide: SideBySideResult | undefined;
  let redis: BenchRedis | undefined;
  /** Portkey's refused attempts to leave loopback, over every process of it the run started. */
  let portkeyRefusals: number | undefined;
  const countRefusals = (processes: readonly TargetProcess[]): void => {
    for (const p of processes) if (p.name === PORTKEY) portkeyRefusals = (portkeyRefusals ?? 0) + p.networkRefusals();
  };

  try {
    if (o.sections.includes('load') || o.sections.includes('sequential')) {
      redis = o.redis ? await startBenchRedis() : undefined;
      const targets = await startLoadTargets(o, maxLifetimeMs, started, redis);
      const mock = targets.get(DIRECT)?.process;
      if (mock === undefined) throw new Error('no mock');
      await warmUp(o, targets);
      if (o.sections.includes('sequential')) {
        process.stderr.write(`sequential: ${o.samples} requests per target\n`);
        // Targets in APART take their turns after the rest, each beside the floor alone (see
        // report.ts): svir-responses as it always has, Portkey's slow answers would stretch
        // everyone's turns.
        const own = [...targets].filter(([name]) => !isApart(name));
        const floor = targets.get(PASS_THROUGH);
        const apart: [string, Target][][] = [];
        for (const name of APART) {
          const target = targets.get(name);
          if (target !== undefined && floor !== undefined) apart.push([[floorBeside(name), floor], [name, target]]);
        }
        const seq = new Map<string, SequentialResult>();
        for (const group of [own, ...apart]) {
          if (group.length === 0) continue;
          const byName = new Map(group);
          const results = await runSequential(
            group.map(([name, t]) => ({ name, port: t.process.port, route: t.route })),
            {
              samples: o.samples,
              warmup: o.warmup,
              readCpuUs: async (name) => {
                const t = byName.get(name);
                return t === undefined ? Number.NaN : cpuUs(await t.process.stats());
              },
            },
          );
          for (const [name] of group) {
            const result = results.get(name);
            if (result === undefined || result.samples === 0) continue;
            // The mock answered every target's requests: its share per request is over all of them.
            const { cpuBlocks, ...rest } = result;
            seq.set(name, { ...rest, ...cpuPerRequest(cpuBlocks ?? [], name === DIRECT ? group.length : 1) });
          }
        }
        sequential = Object.fromEntries(seq);
      }
      if (o.sections.includes('load')) {
        load = await loadSection(o, targets, mock);
        const base = targets.get('svir-openai');
        const candidate = targets.get(CANDIDATE);
        if (base !== undefined && candidate !== undefined) sideBySide = await sideBySideSection(o, base, candidate);
      }
      countRefusals(started);
      await Promise.all(started.splice(0).map((t) => t.stop()));
    }
    if (o.sections.includes('normalizer')) {
      process.stderr.write('normalizer micro-benchmark\n');
      normalizer = await runNormalizerBench({
        seconds: o.microS,
        rounds: 5,
        chunks: o.chunks,
        from: o.svirFrom,
        candidateDist: o.candidate === undefined ? undefined : dirname(o.candidate),
      });
    }
    if (o.sections.includes('memory')) {
      process.stderr.write(`memory: one ${o.memoryBodyMb} MB image request\n`);
      memory = await runMemoryBench({ bodyMb: o.memoryBodyMb, svirFrom: o.svirFrom, svirEntry: o.svirEntry, logLevel: o.logLevel });
    }
    if (o.sections.includes('streams')) {
      process.stderr.write(`open streams: ${o.streams} concurrent slow streams per target\n`);
      openStreams = await runOpenStreamsBench({
        streams: o.streams,
        chunkDelayMs: o.streamDelayMs,
        chunks: o.chunks,
        svirFrom: o.svirFrom,
        svirEntry: o.svirEntry,
        logLevel: o.logLevel,
        compare: streamsCompare(o),
      });
      const portkeyStreams = openStreams.targets[PORTKEY];
      if (portkeyStreams !== undefined) portkeyRefusals = (portkeyRefusals ?? 0) + portkeyStreams.networkRefusals;
    }
  } finally {
    await Promise.all(started.map((t) => t.stop()));
    await redis?.stop();
  }

  const report = buildReport({
    options: o,
    versions: packageVersions(),
    ...(portkeyRefusals === undefined ? {} : { networkRefusals: { [PORTKEY]: portkeyRefusals } }),
    ...(load === undefined ? {} : { load }),
    ...(sequential === undefined ? {} : { sequential }),
    ...(normalizer === undefined ? {} : { normalizer }),
    ...(memory === undefined ? {} : { memory }),
    ...(openStreams === undefined ? {} : { openStreams }),
    ...(sideBySide === undefined ? {} : { sideBySide }),
  });
  console.log(formatReport(report));
  const file = await writeReport(report, o.resultsDir);
  console.log(`\nwritten: ${file} and ${join(o.resultsDir, 'latest.json')}`);
  clearTimeout(watchdog);
}

await main();
