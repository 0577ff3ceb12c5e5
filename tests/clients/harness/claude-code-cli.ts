/**
 * Claude Code (`@anthropic-ai/claude-code`, the npm package; its native binary comes in the
 * optional dependency `@anthropic-ai/claude-code-<os>-<arch>`) run as `claude -p` against svir,
 * sealed off from everything else, as the reference's recorder ran it:
 * - run by runSealedCli (run-sealed-cli.ts): an environment built from nothing (no ANTHROPIC_* or
 *   CLAUDE_* of the machine) but a throwaway HOME and CLAUDE_CONFIG_DIR, svir's key as
 *   ANTHROPIC_AUTH_TOKEN, svir as ANTHROPIC_BASE_URL, the model as ANTHROPIC_MODEL, and Claude
 *   Code's own switches for its side traffic (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC,
 *   DISABLE_TELEMETRY, DISABLE_ERROR_REPORTING, DISABLE_AUTOUPDATER) and the attribution header off
 *   (README, "Claude Code over local models"); every proxy variable at the trap that records each
 *   connection it tries to anywhere but 127.0.0.1; a throwaway working directory; a timeout;
 * - `--output-format stream-json --verbose` on stdout, the one harmless command a test's fake asks
 *   for allowed (`Bash(echo:*)`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { cliVersion } from './cli-version.js';
import { jsonLines } from './json-lines.js';
import { runSealedCli, type SealedRun } from './run-sealed-cli.js';

const require = createRequire(import.meta.url);

/** What a user sets for svir (README, "Claude Code over local models"), given svir's origin, key and model. */
export function claudeCodeEnv(options: { baseURL: string; apiKey: string; model: string; contextTokens?: number }): Record<string, string> {
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
    // Claude Code counts its prompt against this itself: a turn whose prompt and max_tokens do
    // not fit ends in its own "Prompt is too long", never sent (docs/llamacpp-real.md).
    CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(options.contextTokens ?? 32768),
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
  return cliVersion(
    file,
    args,
    { DISABLE_AUTOUPDATER: '1' },
    `Claude Code does not run on ${process.platform}-${process.arch} (its binary comes in the optional dependency ` +
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}; was it installed?)`,
  );
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

export interface ClaudeRun extends SealedRun {
  events: ClaudeEvent[];
  /** The blocks of every assistant message, in order. */
  assistantBlocks: ClaudeBlock[];
  /** The blocks of every user message Claude Code made (tool results), in order. */
  userBlocks: ClaudeBlock[];
  /** The final `result` event. */
  result: ClaudeEvent | undefined;
}

export interface ClaudeRunOptions {
  /** svir's origin, `http://127.0.0.1:<port>`: Claude Code posts to `<base>/v1/messages`. */
  baseURL: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs?: number;
  /** The server's context, as CLAUDE_CODE_MAX_CONTEXT_TOKENS (32768 when not given). */
  contextTokens?: number;
  /** CLAUDE_CODE_MAX_RETRIES: how often Claude Code sends a failed request again (its own default, 10, when not given). */
  maxRetries?: number;
}

export async function runClaudeCode(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const { file, args } = command(claudeEntry());
  const run = await runSealedCli({
    file,
    args: [...args, '-p', options.prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash(echo:*)'],
    env: ({ home }) => ({
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      SHELL: '/bin/bash',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      ...claudeCodeEnv(options),
      ...(options.maxRetries === undefined ? {} : { CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries) }),
    }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const events = jsonLines(run.stdout, claudeEventSchema);
  const blocksOf = (type: string): ClaudeBlock[] =>
    events.flatMap((event) => (event.type === type && Array.isArray(event.message?.content) ? event.message.content : []));
  return {
    ...run,
    events,
    assistantBlocks: blocksOf('assistant'),
    userBlocks: blocksOf('user'),
    result: events.findLast((event) => event.type === 'result'),
  };
}
