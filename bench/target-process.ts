/**
 * Harness side of a server's child process: start it on a free loopback port (the mock and the
 * pass-throughs through serve.ts, svir and Portkey as their own CLIs), wait until it answers,
 * ask it for its own CPU time and memory (child-guard.mjs answers from inside), read its kernel
 * peak RSS from outside, stop it.
 */
import { fork } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ConfigInput } from '../src/config/schema.js';
import { statsMessageSchema, type ProcessStats, type ServeSpec } from './ipc.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { portkeyArgs, portkeyEnv, portkeyPackage, PORTKEY_READY_PATH } from './portkey.js';
import { svirBenchConfig } from './svir-config.js';

export interface TargetProcess {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  stats(): Promise<ProcessStats>;
  /** Kernel peak RSS (VmHWM) in bytes, read from outside: valid while the child is busy. */
  peakRss(): Promise<number | undefined>;
  /** Reset the kernel peak-RSS mark to the current RSS (Linux); false where refused. */
  resetPeakRss(): Promise<boolean>;
  /** Connections and name lookups beyond loopback that loopback-only.mjs refused (Portkey; 0 for the rest). */
  networkRefusals(): number;
  stop(): Promise<void>;
}

export type Launch =
  | { kind: 'serve'; spec: DistributiveOmit<ServeSpec, 'port'> }
  | {
      kind: 'svir';
      backendType: 'openai' | 'llamacpp';
      /** The backend's base URL (the mock's `/v1/` or `/llamacpp/v1/`). */
      upstream: string;
      /** `dist`: the built CLI, as users run it; `src`: the TypeScript CLI through tsx. */
      source: 'dist' | 'src';
      /** A CLI file to run instead of the repository's (a candidate build). */
      entry?: string | undefined;
      logLevel: NonNullable<NonNullable<ConfigInput['server']>['logLevel']>;
      /** `cluster.redis` (the svir-cluster target). */
      redis?: string | undefined;
    }
  /** Portkey's gateway; where it forwards to is in each request's headers (portkey.ts). */
  | { kind: 'portkey' };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface SpawnOptions {
  maxLifetimeMs: number;
  /** Directory for `--cpu-prof` profiles of this child; none: no profiling. */
  cpuProfDir?: string;
}

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const GUARD = here('./child-guard.mjs');
const LOOPBACK_ONLY = here('./loopback-only.mjs');
const REFUSED = 'loopback-only: refused';

/** How a target's process is started and when it counts as ready. */
interface Entry {
  entry: string;
  args: string[];
  tsx: boolean;
  /** Modules preloaded before the guard (Portkey: loopback-only.mjs). */
  preload: string[];
  env: Record<string, string | undefined>;
  /** Ready when a GET of this path answers 2xx. */
  readyPath: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function entryFor(name: string, launch: Launch, port: number, lifetime: Record<string, string>): Promise<Entry> {
  // Ready when it answers GET /v1/models (the pass-throughs forward it to the mock).
  const common = { preload: [], env: { ...process.env, ...lifetime }, readyPath: '/v1/models' };
  if (launch.kind === 'serve') {
    const spec: ServeSpec = { ...launch.spec, port };
    return { ...common, entry: here('./serve.ts'), args: [JSON.stringify(spec)], tsx: true };
  }
  if (launch.kind === 'portkey') {
    return {
      entry: portkeyPackage().entry,
      args: portkeyArgs(port),
      tsx: false,
      preload: [LOOPBACK_ONLY],
      env: { ...portkeyEnv(process.env), ...lifetime },
      readyPath: PORTKEY_READY_PATH,
    };
  }
  const dir = await mkdtemp(join(tmpdir(), `svir-bench-${name}-`));
  const configFile = join(dir, 'config.json');
  const config = svirBenchConfig({ backendType: launch.backendType, upstream: launch.upstream, logLevel: launch.logLevel, port, redis: launch.redis });
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const args = ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)];
  if (launch.entry !== undefined) return { ...common, entry: launch.entry, args, tsx: launch.entry.endsWith('.ts') };
  const entry = launch.source === 'dist' ? here('../dist/cli.js') : here('../src/cli.ts');
  return { ...common, entry, args, tsx: launch.source === 'src' };
}

export async function spawnTarget(name: string, launch: Launch, options: SpawnOptions): Promise<TargetProcess> {
  const port = await freePort();
  const { entry, args, tsx, preload, env, readyPath } = await entryFor(name, launch, port, {
    BENCH_MAX_LIFETIME_MS: String(options.maxLifetimeMs),
  });
  const execArgv = [...preload.flatMap((file) => ['--import', file]), ...(tsx ? ['--import', 'tsx'] : []), '--import', GUARD];
  if (options.cpuProfDir !== undefined) {
    // One directory per target and node's own file names: a process with a loader thread (tsx)
    // writes one profile per thread, and the main thread's is the largest.
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, name)}`);
  }
  const child = fork(entry, args, {
    execArgv,
    env,
    // Log lines go nowhere, as a service's log would be shipped away; stderr is kept for failures.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  let line = '';
  let refusals = 0;
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr = (stderr + text).slice(-4000);
    const lines = (line + text).split('\n');
    line = lines.pop() ?? '';
    refusals += lines.filter((l) => l.startsWith(REFUSED)).length;
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: did not start`);

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited before it was ready (${child.exitCode ?? child.signalCode}):\n${stderr}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}${readyPath}`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name}: not ready after 30 s:\n${stderr}`);
    }
    await sleep(50);
  }

  let nextId = 0;
  const pending = new Map<number, (stats: ProcessStats) => void>();
  child.on('message', (raw) => {
    const parsed = statsMessageSchema.safeParse(raw);
    if (!parsed.success) return;
    pending.get(parsed.data.id)?.(parsed.data.stats);
    pending.delete(parsed.data.id);
  });

  return {
    name,
    port,
    pid,
    stats() {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no stats answer`)), 10_000);
        pending.set(id, (stats) => {
          clearTimeout(timer);
          resolve(stats);
        });
        child.send({ type: 'stats', id });
      });
    },
    async peakRss() {
      try {
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
        return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
      } catch {
        return undefined;
      }
    },
    async resetPeakRss() {
      try {
        await writeFile(`/proc/${pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    },
    networkRefusals() {
      return refusals;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        if (child.connected) child.send({ type: 'exit' });
        else child.kill('SIGTERM');
      });
    },
  };
}
