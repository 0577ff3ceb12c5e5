/**
 * One run of a client's CLI (Codex, Claude Code, pi, Qwen Code) against svir, sealed off from
 * everything but svir on 127.0.0.1, the way every agent test runs one:
 * - a throwaway HOME and working directory, holding only the files the test writes;
 * - an environment built from nothing (none of this machine's keys or settings): PATH, HOME, a
 *   UTF-8 locale, no colours, then what the test gives;
 * - every proxy variable (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, lower-case too) at a trap
 *   (proxy-trap.ts) that records each connection the CLI, or anything it starts, tries to
 *   anywhere else: `strayConnections` must stay empty;
 * - its own process group, killed whole on the timeout and once the CLI has exited (a shell or a
 *   language server it left behind goes with it).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { proxyEnv, startProxyTrap } from './proxy-trap.js';

/** The run's throwaway folders, for arguments and variables that name them. */
export interface SealedDirs {
  home: string;
  workdir: string;
}

export interface SealedCliOptions {
  /** The program: a node binary (the CLI's script first in `args`) or a native binary. */
  file: string;
  args: string[] | ((dirs: SealedDirs) => string[]);
  /** Files to write under the throwaway HOME first (path relative to it → text). */
  files?: Record<string, string>;
  /** Variables besides PATH, HOME, the locale and the proxies. */
  env?: Record<string, string> | ((dirs: SealedDirs) => Record<string, string>);
  /** Kill the run after this long (default 90 s: the machine may be loaded). */
  timeoutMs?: number;
}

export interface SealedRun {
  exitCode: number | null;
  /** Set when the run was killed by the timeout. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Connections tried through a proxy, i.e. to anything but 127.0.0.1: must stay empty. */
  strayConnections: string[];
}

function killGroup(pid: number | undefined): void {
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

export async function runSealedCli(options: SealedCliOptions): Promise<SealedRun> {
  const root = await mkdtemp(join(tmpdir(), 'svir-cli-'));
  const dirs: SealedDirs = { home: join(root, 'home'), workdir: join(root, 'work') };
  const trap = await startProxyTrap();
  try {
    await mkdir(dirs.home);
    await mkdir(dirs.workdir);
    for (const [path, text] of Object.entries(options.files ?? {})) {
      await mkdir(dirname(join(dirs.home, path)), { recursive: true });
      await writeFile(join(dirs.home, path), text);
    }
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: dirs.home,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      ...(typeof options.env === 'function' ? options.env(dirs) : options.env),
      ...proxyEnv(trap.url),
    };
    const args = typeof options.args === 'function' ? options.args(dirs) : options.args;
    const child = spawn(options.file, args, { cwd: dirs.workdir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const closed = once(child, 'close');
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs ?? 90_000);
    const [exitCode] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    // Whatever it left running in its group goes with it, and with them the last open pipe.
    killGroup(child.pid);
    await closed;
    return { exitCode, timedOut, stdout, stderr, strayConnections: [...trap.attempts] };
  } finally {
    await trap.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** What a run printed, for an assertion's message: the exit, then the ends of both streams. */
export function transcript(run: SealedRun): string {
  return `exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}\n--- stdout\n${run.stdout.slice(-6000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
}
