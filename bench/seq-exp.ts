import { runLoad } from './load.js';
import { CHAT_ROUTE } from './routes.js';
import { runSequential, cpuPerRequest } from './sequential.js';
import { spawnTarget, type TargetProcess } from './target-process.js';
const life = { maxLifetimeMs: 600_000 };
const mock = await spawnTarget('mock', { kind: 'serve', spec: { role: 'mock', delayMs: 0, chunks: 64, reasoning: 'off', toolCalls: false, usage: true } }, life);
const origin = `http://127.0.0.1:${mock.port}`;
const targets: TargetProcess[] = [await spawnTarget('pass-through', { kind: 'serve', spec: { role: 'pass-through', upstream: origin } }, life)];
for (const arg of process.argv.slice(2)) {
  const [name, entry, level] = arg.split(':');
  targets.push(await spawnTarget(name!, { kind: 'svir', backendType: 'openai', upstream: `${origin}/v1/`, source: 'dist', entry: entry!, logLevel: (level ?? 'info') as 'info' }, life));
}
for (const t of targets) await runLoad({ port: t.port, route: CHAT_ROUTE, connections: 32, durationS: 2 });
const byName = new Map(targets.map((t) => [t.name, t]));
const res = await runSequential(targets.map((t) => ({ name: t.name, port: t.port, route: CHAT_ROUTE })), {
  samples: Number(process.env.SAMPLES ?? 400), warmup: 20,
  readCpuUs: async (n) => { const s = await byName.get(n)!.stats(); return s.userUs + s.systemUs; },
});
const floor = res.get('pass-through')!;
const fc = cpuPerRequest(floor.cpuBlocks!, 1);
for (const t of targets) {
  const r = res.get(t.name)!; const c = cpuPerRequest(r.cpuBlocks!, 1);
  console.log(`${t.name.padEnd(14)} ttfb ${r.ttfbMedianMs.toFixed(3)} (+${(r.ttfbMedianMs - floor.ttfbMedianMs).toFixed(3)})  cpu med ${c.cpuUsPerRequest!.toFixed(0)} (${(c.cpuUsPerRequest! / fc.cpuUsPerRequest!).toFixed(2)}x) mean ${c.cpuUsPerRequestMean!.toFixed(0)} (${(c.cpuUsPerRequestMean! / fc.cpuUsPerRequestMean!).toFixed(2)}x)`);
}
for (const t of [mock, ...targets]) await t.stop();
