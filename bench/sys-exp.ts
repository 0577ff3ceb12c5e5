import { execFile, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load.js';
import { CHAT_ROUTE } from './routes.js';
import { runSequential } from './sequential.js';
import { spawnTarget } from './target-process.js';
const life = { maxLifetimeMs: 300_000 };
const mock = await spawnTarget('mock', { kind: 'serve', spec: { role: 'mock', delayMs: 0, chunks: 64, reasoning: 'off', toolCalls: false, usage: true } }, life);
const origin = `http://127.0.0.1:${mock.port}`;
const pass = await spawnTarget('pass-through', { kind: 'serve', spec: { role: 'pass-through', upstream: origin } }, life);
const svir = await spawnTarget('svir', { kind: 'svir', backendType: 'openai', upstream: `${origin}/v1/`, source: 'dist', entry: process.argv[2] ?? '/work/wt-lead/dist/cli.js', logLevel: 'info' }, life);
for (const t of [pass, svir]) {
  await runLoad({ port: t.port, route: CHAT_ROUTE, connections: 32, durationS: 2 });
  await runSequential([{ name: t.name, port: t.port, route: CHAT_ROUTE }], { samples: 50, warmup: 0 });
  const st = spawn('strace', ['-f', '-c', '-p', String(t.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  st.stderr.on('data', (d) => (out += d));
  await sleep(1000);
  await runSequential([{ name: t.name, port: t.port, route: CHAT_ROUTE }], { samples: 500, warmup: 0 });
  st.kill('SIGINT');
  await new Promise((r) => st.on('close', r));
  console.log(`== ${t.name} (500 requests)\n${out.split('\n').filter((l) => !/attached|detached/.test(l)).join('\n')}`);
}
for (const t of [mock, pass, svir]) await t.stop();
void execFile;
