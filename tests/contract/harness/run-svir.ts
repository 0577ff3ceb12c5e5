/**
 * The built `svir` as a child process, the way a user runs it: a config file written to a temp
 * folder, `--config` (or `SVIR_CONFIG`), `--host`/`--port` when a test wants them, and only the
 * environment a test gives (no SVIR_API_KEYS or SVIR_CONFIG from the machine). Start-up is over
 * when the summary names the base URL for clients; a program that exits first is reported
 * with what it printed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtSvir } from './built-svir.js';

export interface SvirExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SvirProcess {
  /** `http://127.0.0.1:<port>` as svir printed it. */
  url: string;
  /** `url` + `/v1`, what a client takes. */
  baseUrl: string;
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit. Idempotent. */
  stop(): Promise<SvirExit>;
}

export interface RunOptions {
  /** Config file text (YAML or JSON), written to a temp folder. */
  config?: string;
  /** Extra argv after `--config FILE` (or instead of it, when `config` is undefined). */
  args?: readonly string[];
  /** Added to a clean environment (PATH, HOME, TMPDIR, LANG). */
  env?: Record<string, string>;
  /** Name the file with SVIR_CONFIG instead of `--config`. */
  viaEnv?: boolean;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Writes `text` as a config file in a fresh temp folder; returns its path and a remover. */
export function writeConfigFile(text: string, name = 'svir.yaml'): { file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svir-contract-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function configArgs(options: RunOptions): { args: string[]; env: Record<string, string>; remove(): void } {
  if (options.config === undefined) return { args: [...(options.args ?? [])], env: { ...options.env }, remove: () => undefined };
  const written = writeConfigFile(options.config);
  if (options.viaEnv === true) {
    return { args: [...(options.args ?? [])], env: { ...options.env, SVIR_CONFIG: written.file }, remove: written.remove };
  }
  return { args: ['--config', written.file, ...(options.args ?? [])], env: { ...options.env }, remove: written.remove };
}

/** Runs the program to its exit (for refusals: a bad config, --help). */
export async function runSvirToExit(options: RunOptions, timeoutMs = 15_000): Promise<SvirExit> {
  const { cli, root } = builtSvir();
  const setup = configArgs(options);
  const child = spawn(process.execPath, [cli, ...setup.args], { cwd: root, env: cleanEnv(setup.env) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  setup.remove();
  return { code, signal, stdout, stderr };
}

/** Starts the program and waits for its start-up summary. */
export async function startSvirProcess(options: RunOptions): Promise<SvirProcess> {
  const { cli, root } = builtSvir();
  const setup = configArgs(options);
  const child = spawn(process.execPath, [cli, ...setup.args], { cwd: root, env: cleanEnv(setup.env) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  const exited = new Promise<SvirExit>((resolve) => {
    child.once('exit', (code, signal) => {
      setup.remove();
      resolve({ code, signal, stdout, stderr });
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const match = /OpenAI base URL for clients: (http:\/\/\S+)\/v1\n/.exec(stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then((exit) => reject(new Error(`svir exited (${exit.code ?? exit.signal}) before serving:\n${exit.stderr}`)));
  });
  let stopping: Promise<SvirExit> | undefined;
  return {
    url,
    baseUrl: `${url}/v1`,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    stop() {
      if (stopping === undefined) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        stopping = exited.finally(() => clearTimeout(kill));
      }
      return stopping;
    },
  };
}
