#!/usr/bin/env node
/**
 * The `svir` program: `svir --config FILE [--host H] [--port P]` (or `SVIR_CONFIG=FILE`).
 * Without a config it fronts the usual local ports. Prints where it listens and what each
 * backend looks like, then serves until SIGTERM/SIGINT, when it shuts down gracefully.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { defaultConfig } from './config/default-config.js';
import { ConfigError, loadConfig } from './config/load-config.js';
import { configSchema, type Config } from './config/schema.js';
import { createLogDestination } from './logging/create-log-destination.js';
import { collectSecrets } from './logging/collect-secrets.js';
import { createLogger } from './logging/create-logger.js';
import { resolveApiKeys } from './auth/resolve-api-keys.js';
import type { BackendStatus } from './router/create-model-registry.js';
import { runCheckCommand } from './check/run-check-command.js';
import { createConfigReloader, type ConfigReloader } from './reload/create-config-reloader.js';
import { shutdownServer } from './lifecycle/shutdown-server.js';
import { startServer, type StartedServer } from './lifecycle/start-server.js';

const USAGE = `svir: one clean OpenAI Chat Completions API in front of local LLM servers

Usage:
  svir [--config FILE] [--host HOST] [--port PORT]
  svir check [--config FILE] [--timeout SECONDS]   validate the config, probe every backend

Options:
  -c, --config FILE   config file (YAML or JSON); also SVIR_CONFIG=FILE.
                      Without one, svir fronts LM Studio (127.0.0.1:1234), llama.cpp (:8080),
                      vLLM (:8000) and Ollama (:11434), and discovers their models.
      --host HOST     listen address (overrides server.host; default 127.0.0.1)
  -p, --port PORT     listen port (overrides server.port; default 4000)
  -h, --help          show this help
  -v, --version       show the version

Environment:
  SVIR_CONFIG         config file when --config is not given
  SVIR_API_KEYS       svir's own API keys, comma-separated (added to server.apiKeys)
  \${NAME}             in the config file is replaced by the variable NAME

Clients use http://HOST:PORT/v1 as their OpenAI base URL. See config/example.yaml for every key.
`;

function version(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string') {
      return parsed.version;
    }
  } catch {
    // Not fatal: the version is only shown.
  }
  return 'unknown';
}

/** How long a graceful exit waits for the log lines still to be written. */
const FLUSH_WAIT_MS = 1_000;

function fail(message: string, code = 1): never {
  process.stderr.write(`svir: ${message}\n`);
  process.exit(code);
}

function parsePort(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65_535) fail(`--port must be a number from 0 to 65535, not "${text}"`, 2);
  return Number(text);
}

async function readConfig(file: string | undefined): Promise<Config> {
  if (file === undefined) return defaultConfig();
  try {
    return await loadConfig(file);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

function describeBackend(status: BackendStatus): string {
  const models = status.models.length === 1 ? '1 model' : `${status.models.length} models`;
  const state = status.state === 'up' ? 'up  ' : 'down';
  const detail =
    status.state === 'up'
      ? `${models}${status.modelsFrom === 'config' ? ' (configured)' : ''}`
      : `${status.modelsFrom === 'config' ? `${models} configured; ` : ''}${(status.reason ?? 'not answering').replace(/^backend "[^"]*" (is )?/, '')}`;
  return `    ${state}  ${status.name} (${status.type}) ${status.baseUrl}  ${detail}`;
}

function summary(started: StartedServer, source: string): string {
  const lines = [
    `svir ${version()} listening on ${started.url}`,
    `  config: ${source}`,
    `  backends:`,
    ...started.backends.map(describeBackend),
    started.apiKeyCount > 0
      ? `  auth: clients send "Authorization: Bearer <key>" (${started.apiKeyCount} key${started.apiKeyCount === 1 ? '' : 's'})`
      : `  auth: none (any API key works)`,
    ``,
    `  OpenAI base URL for clients: ${started.baseUrl}`,
  ];
  if (started.backends.every((b) => b.state !== 'up')) {
    lines.push(`  (no backend answers yet: svir serves them as soon as they come up)`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'check') {
    const io = { env: process.env, out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };
    process.exitCode = await runCheckCommand(process.argv.slice(3), io);
    return;
  }
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        host: { type: 'string' },
        port: { type: 'string', short: 'p' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    fail(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`, 2);
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.version === true) {
    process.stdout.write(`${version()}\n`);
    return;
  }

  const file = values.config ?? (process.env.SVIR_CONFIG === '' ? undefined : process.env.SVIR_CONFIG);
  const { host, port } = values;
  // Overrides go through the schema again, so a bad --host is reported like a bad file.
  const withOverrides = (loaded: Config) =>
    configSchema.safeParse({
      ...loaded,
      server: {
        ...loaded.server,
        ...(host === undefined ? {} : { host }),
        ...(port === undefined ? {} : { port: parsePort(port) }),
      },
    });
  const overridden = withOverrides(await readConfig(file));
  if (!overridden.success) fail(`invalid --host or --port: ${overridden.error.message}`, 2);
  const config = overridden.data;

  const secrets = [...collectSecrets(config), ...resolveApiKeys(config.server.apiKeys, process.env)];
  // stdout written at the end of each loop turn; what waits is written on exit and by the graceful shutdown.
  const logger = createLogger({ level: config.server.logLevel, secrets, destination: createLogDestination() });
  // Signals are taken before anything is printed, so a supervisor that stops svir as soon as it
  // reads the summary still gets a graceful shutdown.
  let started: StartedServer | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal: the user does not want to wait.
      process.stderr.write(`svir: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    if (started === undefined) {
      // Still starting: nothing is being served yet.
      process.stderr.write(`svir: ${signal} while starting, exiting\n`);
      process.exit(0);
    }
    const grace = started.app.svir.config.server.shutdownGraceMs;
    process.stderr.write(`svir: ${signal}, shutting down (open streams get ${grace} ms)\n`);
    shutdownServer(started.app, grace)
      .then(() => {
        // The log lines still waiting are written first (create-log-destination.ts); a stdout
        // nobody reads does not hold the exit for more than a second.
        const exit = (): never => process.exit(0);
        setTimeout(exit, FLUSH_WAIT_MS).unref();
        logger.flush(exit);
      })
      .catch((err: unknown) => {
        process.stderr.write(`svir: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Taken early too: SIGHUP's default action would end the process.
  let reloader: ConfigReloader | undefined;
  process.on('SIGHUP', () => {
    if (reloader === undefined) process.stderr.write('svir: SIGHUP while starting, ignored\n');
    else void reloader.reload();
  });

  let running: StartedServer;
  try {
    running = await startServer(config, { logger, processMetrics: true });
  } catch (err) {
    // What the logger holds is written on exit, by its destination's exit handler
    // (create-log-destination.ts).
    fail(err instanceof Error ? err.message : String(err));
  }
  started = running;
  const source = file ?? 'built-in default (LM Studio :1234, llama.cpp :8080, vLLM :8000, Ollama :11434)';
  process.stderr.write(summary(running, source));

  // SIGHUP (and, with server.watchConfig, a change of the file) reloads the config: a bad file
  // is refused with one log line and the running config stays; open streams are not dropped.
  reloader = createConfigReloader({
    async load() {
      if (file === undefined) throw new Error('svir runs on its built-in default config: there is no file to reload.');
      const next = withOverrides(await loadConfig(file));
      if (!next.success) throw new Error(`invalid --host or --port: ${next.error.message}`);
      return next.data;
    },
    apply: (next) => running.app.svir.reload(next),
    log: { info: (message) => logger.info(message), error: (message) => logger.error(message) },
  });
  if (file !== undefined && config.server.watchConfig) reloader.watchFile(file);
}

main().catch((err: unknown) => {
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
