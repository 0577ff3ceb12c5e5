/**
 * Codex CLI (`@openai/codex`, the npm package; its native binary comes in the platform package
 * `@openai/codex-<os>-<arch>`) run as `codex exec` against svir, sealed off from everything else:
 * - a throwaway CODEX_HOME whose config.toml points a custom provider (`wire_api = "responses"`)
 *   at svir, with no retries, and turns off what reaches other hosts on its own. Seen with
 *   0.171 behind the trap below: the curated-plugin sync (`features.plugins`: git and HTTPS to
 *   github.com, then chatgpt.com) and analytics (ab.chatgpt.com); the update check, feedback,
 *   OpenTelemetry export and the app/plugin features beside them are off as a precaution;
 * - run by runSealedCli (run-sealed-cli.ts): an environment built from nothing (no
 *   OPENAI_API_KEY or CODEX_* of the machine) but svir's key, every proxy variable at the trap
 *   that records each connection Codex (or a git it runs) tries to anywhere but 127.0.0.1, a
 *   throwaway working directory, a timeout;
 * - no sandbox (root in a container has none to give; the only command run is the harmless one a
 *   test's fake asks for), `--json` events on stdout.
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import { cliVersion } from './cli-version.js';
import { jsonLines } from './json-lines.js';
import { runSealedCli, type SealedRun } from './run-sealed-cli.js';

/** The environment variable that carries svir's key to Codex (`env_key`). */
export const CODEX_KEY_ENV = 'SVIR_KEY';

export interface CodexProviderOptions {
  /** svir's base URL, `http://127.0.0.1:<port>/v1`: Codex posts to `<base_url>/responses`. */
  baseURL: string;
  model: string;
}

/** What a user writes for svir in config.toml (README, "Codex CLI"): the model and the provider. */
export function codexProviderToml({ baseURL, model }: CodexProviderOptions): string {
  return [
    `model = ${JSON.stringify(model)}`,
    'model_provider = "svir"',
    '',
    '[model_providers.svir]',
    'name = "svir"',
    `base_url = ${JSON.stringify(baseURL)}`,
    `env_key = ${JSON.stringify(CODEX_KEY_ENV)}`,
    'wire_api = "responses"',
    '',
  ].join('\n');
}

/**
 * The test run's config.toml: the user's provider block, then what only a sealed test run needs
 * (top-level keys must come before the first table, so they go first).
 */
export function codexConfigToml(options: CodexProviderOptions): string {
  return [
    // Run the one harmless command the fake asks for without asking anyone.
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'check_for_update_on_startup = false',
    codexProviderToml(options),
    // One request per turn: a failure shows at once instead of being retried behind the test.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[otel]',
    'exporter = "none"',
    '',
    '[history]',
    'persistence = "none"',
    '',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    'tool_suggest = false',
    // The shell snapshot starts a login shell before the turn: slow, and not what is tested.
    'shell_snapshot = false',
    '',
  ].join('\n');
}

const require = createRequire(import.meta.url);

/** The npm entry point (`bin/codex.js`), which finds and runs the platform's native binary. */
function codexEntry(): string {
  return require.resolve('@openai/codex/bin/codex.js');
}

/**
 * `codex --version`, or an error saying why Codex cannot run here: the tests that need it fail
 * with this message instead of being skipped (CI runs on the same kind of machine).
 */
export async function codexVersion(): Promise<string> {
  let entry: string;
  try {
    entry = codexEntry();
  } catch (err) {
    throw new Error(`@openai/codex is not installed (the test packages, tests/package.json): ${String(err)}`);
  }
  return cliVersion(
    process.execPath,
    [entry],
    {},
    `Codex CLI does not run on ${process.platform}-${process.arch} (its binary comes in the optional dependency ` +
      `@openai/codex-${process.platform}-${process.arch}; was it installed?)`,
  );
}

/** One line of `codex exec --json`, as far as the tests read it. */
const codexEventSchema = z.looseObject({
  type: z.string(),
  item: z.looseObject({ type: z.string(), text: z.string().optional(), message: z.string().optional() }).optional(),
  error: z.looseObject({ message: z.string() }).optional(),
});
export type CodexEvent = z.infer<typeof codexEventSchema>;

export interface CodexRun extends SealedRun {
  /** The `--json` events, in order (lines that are not JSON events are left out). */
  events: CodexEvent[];
  /** `item.completed` items, in order. */
  items: NonNullable<CodexEvent['item']>[];
  /** The text of the last `agent_message`: what Codex answers. */
  lastMessage: string | undefined;
}

export interface CodexRunOptions extends CodexProviderOptions {
  apiKey: string;
  prompt: string;
  /** Kill the run after this long (default 90 s: the machine may be loaded). */
  timeoutMs?: number;
}

/** Runs `codex exec --json <prompt>` once, sealed off as described above, and collects what it did. */
export async function runCodexExec(options: CodexRunOptions): Promise<CodexRun> {
  const run = await runSealedCli({
    file: process.execPath,
    args: ({ workdir }) => [
      codexEntry(),
      'exec',
      '--json',
      '--color',
      'never',
      // A key this version does not know fails the run instead of being ignored.
      '--strict-config',
      '--ephemeral',
      '--skip-git-repo-check',
      '-C',
      workdir,
      options.prompt,
    ],
    files: { 'config.toml': codexConfigToml(options) },
    env: ({ home }) => ({ CODEX_HOME: home, [CODEX_KEY_ENV]: options.apiKey }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const events = jsonLines(run.stdout, codexEventSchema);
  const items = events.flatMap((event) => (event.type === 'item.completed' && event.item !== undefined ? [event.item] : []));
  const messages = items.filter((item) => item.type === 'agent_message');
  return { ...run, events, items, lastMessage: messages.at(-1)?.text };
}
