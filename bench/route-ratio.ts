/**
 * The Responses and Messages routes' CPU per request ÷ the chat route's (issues 26 and 21:
 * within 1.15×), for one or more builds of svir (not part of `npm run bench`). Each build runs as one svir process in
 * front of the bench's mock (an `openai` backend, the bench's 64-chunk answer); the three routes
 * are loaded in turn on that same process, in short runs (32 connections), the order reversed
 * every round, the builds taking turns likewise. Both routes of a build then meet the same
 * process state and, within a second or so, the same load from whatever else the machine runs,
 * which moves CPU time per request by a third from run to run on a shared machine. Printed per
 * build: the medians of CPU µs per request, the median of the per-round ratios, the ratio of
 * the means and of the medians; with several builds, each route of each later build ÷ the same
 * route of the first (side by side against the code before).
 *
 *   npm run build && node --import tsx bench/route-ratio.ts [--rounds 100] [--seconds 0.3] \
 *     [name=path/to/dist/cli.js ...]      (default: this checkout's dist/cli.js, as `svir`)
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad } from './load.js';
import { DEFAULT_MOCK, startMockUpstream } from './mock-upstream.js';
import { CHAT_ROUTE, MESSAGES_ROUTE, RESPONSES_ROUTE, type BenchRoute } from './routes.js';
import { median } from './sequential.js';
import { spawnTarget, type TargetProcess } from './target-process.js';

const CONNECTIONS = 32;

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '100' }, seconds: { type: 'string', default: '0.3' } },
  allowPositionals: true,
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const builds = (positionals.length > 0 ? positionals : [`svir=${fileURLToPath(new URL('../dist/cli.js', import.meta.url))}`]).map((arg) => {
  const at = arg.indexOf('=');
  if (at <= 0) throw new Error(`expected name=path/to/cli.js, got ${arg}`);
  return { name: arg.slice(0, at), entry: arg.slice(at + 1) };
});

const mock = await startMockUpstream(DEFAULT_MOCK);
const upstream = `http://127.0.0.1:${String(mock.port)}/v1/`;
const ROUTES = [CHAT_ROUTE, RESPONSES_ROUTE, MESSAGES_ROUTE] as const;
const targets: { name: string; svir: TargetProcess; chat: number[]; responses: number[]; messages: number[] }[] = [];
for (const build of builds) {
  const svir = await spawnTarget(
    build.name,
    { kind: 'svir', backendType: 'openai', upstream, source: 'dist', entry: build.entry, logLevel: 'info' },
    { maxLifetimeMs: 60 * 60_000 },
  );
  targets.push({ name: build.name, svir, chat: [], responses: [], messages: [] });
}

async function cpuUs(target: TargetProcess): Promise<number> {
  const stats = await target.stats();
  return stats.userUs + stats.systemUs;
}

/** One run of one route: CPU µs of the svir process per completed request. */
async function measure(target: TargetProcess, route: BenchRoute): Promise<number> {
  const before = await cpuUs(target);
  const result = await runLoad({ port: target.port, route, connections: CONNECTIONS, durationS: seconds });
  const used = (await cpuUs(target)) - before;
  if (result.errors + result.non2xx + result.mismatches > 0 || result.completed === 0) throw new Error(`${route.name}: failed requests`);
  return used / result.completed;
}

// Warm-up: every process on every route.
for (const target of targets) for (const route of ROUTES) await runLoad({ port: target.svir.port, route, connections: CONNECTIONS, durationS: 2 });

for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? targets : [...targets].reverse();
  for (const target of order) {
    const routes = round % 2 === 0 ? ROUTES : [...ROUTES].reverse();
    for (const route of routes) target[route.name].push(await measure(target.svir, route));
  }
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const target of targets) {
  for (const name of ['responses', 'messages'] as const) {
    const runs = target[name];
    const ratios = target.chat.map((chat, i) => (runs[i] ?? Number.NaN) / chat);
    console.log(
      `${target.name}: chat ${median(target.chat).toFixed(0)} µs/req, ${name} ${median(runs).toFixed(0)} µs/req (medians over ${String(rounds)} rounds); ` +
        `${name} ÷ chat: median of per-round ratios ${median(ratios).toFixed(3)}, ratio of means ${(mean(runs) / mean(target.chat)).toFixed(3)}, ` +
        `ratio of medians ${(median(runs) / median(target.chat)).toFixed(3)}`,
    );
  }
}
// Builds side by side: each later build's CPU per request on each route ÷ the first build's, per
// round (the two ran within the same second or so).
const [base, ...others] = targets;
for (const target of others) {
  if (base === undefined) break;
  for (const name of ['chat', 'responses', 'messages'] as const) {
    const ratios = target[name].map((us, i) => us / (base[name][i] ?? Number.NaN));
    console.log(
      `${target.name} ÷ ${base.name}, ${name}: median of per-round ratios ${median(ratios).toFixed(3)}, ` +
        `ratio of means ${(mean(target[name]) / mean(base[name])).toFixed(3)}`,
    );
  }
}
for (const target of targets) await target.svir.stop();
mock.server.closeAllConnections();
mock.server.close();
