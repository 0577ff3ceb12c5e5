/**
 * Claude Code (`@anthropic-ai/claude-code`, the npm package; its native binary comes in the
 * optional dependency `@anthropic-ai/claude-code-<os>-<arch>`) run as `claude -p` against svir,
 * sealed off from everything else, as the reference's recorder ran it:
 * - an environment built from nothing (no ANTHROPIC_* or CLAUDE_* of the machine): a throwaway
 *   HOME and CLAUDE_CONFIG_DIR, svir's key as ANTHROPIC_AUTH_TOKEN, svir as ANTHROPIC_BASE_URL,
 *   the model as ANTHROPIC_MODEL, and Claude Code's own switches for its side traffic
 *   (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, DISABLE_TELEMETRY, DISABLE_ERROR_REPORTING,
 *   DISABLE_AUTOUPDATER) and the attribution header off (README, "Claude Code over local models");
 * - HTTP(S)_PROXY / ALL_PROXY at a local trap: every connection it tries to anywhere but
 *   127.0.0.1 lands there and is recorded, then closed;
 * - a throwaway working directory, `--output-format stream-json --verbose` on stdout, the one
 *   harmless command a test's fake asks for allowed (`Bash(echo:*)`), a timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';

const require = createRequire(import.meta.url);

/** What a user sets for svir (README, "Claude Code over local models"), given svir's origin, key and model. */
export function claudeCodeEnv(options: { baseURL: string; apiKey: string; model: string }): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: options.baseURL,
    ANTHROPIC_AUTH_TOKEN: options.apiKey,
    ANTHROPIC_MODEL: options.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: options.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: options.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: options.model,
    CLAUDE_CODE_SUBAGENT_MODEL: options.model,
    CLAUDE_CODE_ATTRIBUTION_HEADER: '0',
    DISABLE_COMPACT: '1',
    CLAUDE_CODE_MAX_CONTEXT_TOKENS: '32768',
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192',
  };
}

/**
 * The native binary: the platform package's own file (`@anthropic-ai/claude-code-<os>-<arch>`),
 * whatever the wrapper's postinstall did with its `bin/claude.exe` placeholder (copied it over,
 * or left the stub when install scripts did not run); the wrapper's bin otherwise.
 */
function claudeEntry(): string {
  try {
    const manifest = require.resolve(`@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`);
    return join(dirname(manifest), 'claude');
  } catch {
    const wrapper = z.looseObject({ bin: z.union([z.string(), z.record(z.string(), z.string())]) }).parse(require('@anthropic-ai/claude-code/package.json'));
    const bin = typeof wrapper.bin === 'string' ? wrapper.bin : (wrapper.bin['claude'] ?? Object.values(wrapper.bin)[0] ?? '');
    return require.resolve(`@anthropic-ai/claude-code/${bin.replace(/^\.\//, '')}`);
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('close', (code: number | null) => resolve(code)));
}

/** How to start the entry point: a JavaScript file under node, a native binary as it is. */
function command(entry: string): { file: string; args: string[] } {
  return /\.(c|m)?js$/.test(entry) ? { file: process.execPath, args: [entry] } : { file: entry, args: [] };
}

/**
 * `claude --version`, or an error saying why Claude Code cannot run here: the tests that need it
 * fail with this message instead of being skipped.
 */
export async function claudeCodeVersion(): Promise<string> {
  let entry: string;
  try {
    entry = claudeEntry();
  } catch (err) {
    throw new Error(`@anthropic-ai/claude-code is not installed (the test packages, tests/package.json): ${String(err)}`);
  }
  const { file, args } = command(entry);
  const child = spawn(file, [...args, '--version'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', DISABLE_AUTOUPDATER: '1' } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await exitOf(child);
  if (code !== 0) {
    throw new Error(
      `Claude Code does not run on ${process.platform}-${process.arch} (its binary comes in the optional dependency ` +
        `@anthropic-ai/claude-code-${process.platform}-${process.arch}; was it installed?): exit ${String(code)}\n${out}`,
    );
  }
  return out.trim();
}

/** A local stand-in for every proxy: records the first line of each connection, then closes it. */
async function startProxyTrap(): Promise<{ url: string; attempts: string[]; close(): Promise<void> }> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', (data: Buffer) => {
      attempts.push(data.toString('latin1').split('\r\n')[0] ?? '');
      socket.destroy();
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy trap has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    attempts,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

const blockSchema = z.looseObject({ type: z.string(), text: z.string().optional(), thinking: z.string().optional(), name: z.string().optional(), input: z.unknown().optional(), content: z.unknown().optional() });

/** One line of `--output-format stream-json`, as far as the tests read it. */
const claudeEventSchema = z.looseObject({
  type: z.string(),
  subtype: z.string().optional(),
  is_error: z.boolean().optional(),
  result: z.string().optional(),
  message: z.looseObject({ content: z.union([z.string(), z.array(blockSchema)]).optional() }).optional(),
});
export type ClaudeEvent = z.infer<typeof claudeEventSchema>;
export type ClaudeBlock = z.infer<typeof blockSchema>;

export interface ClaudeRun {
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  events: ClaudeEvent[];
  /** The blocks of every assistant message, in order. */
  assistantBlocks: ClaudeBlock[];
  /** The blocks of every user message Claude Code made (tool results), in order. */
  userBlocks: ClaudeBlock[];
  /** The final `result` event. */
  result: ClaudeEvent | undefined;
  /** Connections Claude Code tried through a proxy, i.e. to anything but 127.0.0.1: must stay empty. */
  strayConnections: string[];
}

export interface ClaudeRunOptions {
  /** svir's origin, `http://127.0.0.1:<port>`: Claude Code posts to `<base>/v1/messages`. */
  baseURL: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs?: number;
}

export async function runClaudeCode(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const root = await mkdtemp(join(tmpdir(), 'svir-claude-'));
  const home = join(root, 'home');
  const workdir = join(root, 'work');
  const trap = await startProxyTrap();
  try {
    await mkdir(home);
    await mkdir(workdir);
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      SHELL: '/bin/bash',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      ...claudeCodeEnv(options),
    };
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
      env[name] = trap.url;
      env[name.toLowerCase()] = trap.url;
    }
    env['NO_PROXY'] = '127.0.0.1,localhost';
    env['no_proxy'] = '127.0.0.1,localhost';

    const { file, args } = command(claudeEntry());
    const child = spawn(
      file,
      [...args, '-p', options.prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash(echo:*)'],
      { cwd: workdir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs ?? 90_000);
    const exitCode = await exitOf(child);
    clearTimeout(timer);

    const events: ClaudeEvent[] = [];
    for (const line of stdout.split('\n')) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      const parsed = claudeEventSchema.safeParse(value);
      if (parsed.success) events.push(parsed.data);
    }
    const blocksOf = (type: string): ClaudeBlock[] =>
      events.flatMap((event) => (event.type === type && Array.isArray(event.message?.content) ? event.message.content : []));
    return {
      exitCode,
      timedOut,
      stdout,
      stderr,
      events,
      assistantBlocks: blocksOf('assistant'),
      userBlocks: blocksOf('user'),
      result: events.findLast((event) => event.type === 'result'),
      strayConnections: [...trap.attempts],
    };
  } finally {
    await trap.close();
    await rm(root, { recursive: true, force: true });
  }
}
