/**
 * `svir check [--config FILE] [--timeout SECONDS]`: validates the config (the file named, else
 * SVIR_CONFIG, else the built-in default that fronts the usual local ports), probes every
 * backend at once, prints the report, and answers with the exit status: 0 when every backend
 * is usable, 1 when one is not, 2 when the config or the command line is wrong.
 */
import { parseArgs } from 'node:util';
import type { BackendInfo } from '../adapters/adapter.js';
import { defaultConfig } from '../config/default-config.js';
import { ConfigError, loadConfig, type Env } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { normalizeBaseUrl } from '../config/normalize-base-url.js';
import { createUpstreamPool } from '../upstream/create-upstream-pool.js';
import { formatCheckReport, type CheckedBackend } from './format-check-report.js';
import { plannedRewrites } from './planned-rewrites.js';
import { probeBackend } from './probe-backend.js';

export interface CheckIo {
  env: Env;
  out(text: string): void;
  err(text: string): void;
}

/** A local model may have to load before its first token: give each exchange a minute. */
const DEFAULT_TIMEOUT_SECONDS = 60;

const USAGE = `usage: svir check [--config FILE] [--timeout SECONDS]

Validates the config and probes every backend: reachable, key accepted, models, and one tiny
request per feature (stream, stream_options, reasoning_effort, tools, json_schema, images).
Exit status: 0 every backend usable, 1 one is not, 2 bad config or arguments.
`;

export async function runCheckCommand(argv: readonly string[], io: CheckIo): Promise<number> {
  let values: { config?: string | undefined; timeout?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { config: { type: 'string', short: 'c' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.err(`svir check: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    io.out(USAGE);
    return 0;
  }
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    io.err(`svir check: --timeout must be a positive number of seconds, not "${values.timeout ?? ''}"\n`);
    return 2;
  }

  const file = values.config ?? io.env['SVIR_CONFIG'];
  let config: Config;
  try {
    config = file === undefined || file === '' ? defaultConfig() : await loadConfig(file, io.env);
  } catch (err) {
    io.err(`svir check: ${err instanceof ConfigError ? err.message : `cannot load the config: ${String(err)}`}\n`);
    return 2;
  }

  const pool = createUpstreamPool();
  try {
    const backends = await Promise.all(
      config.backends.map(async (backendConfig): Promise<CheckedBackend> => {
        const backend: BackendInfo = {
          config: backendConfig,
          baseUrl: normalizeBaseUrl(backendConfig.url),
          vision: backendConfig.vision,
          reasoningField: config.reasoning.field,
        };
        const checked = await probeBackend(backend, {
          dispatcher: pool.dispatcherFor(backendConfig),
          timeoutMs: timeoutSeconds * 1000,
          reasoningField: config.reasoning.field,
        });
        return { ...checked, rewrites: plannedRewrites(backend, checked.probeModel) };
      }),
    );
    io.out(formatCheckReport({ configSource: file === undefined || file === '' ? '(built-in default)' : file, backends }));
    return backends.every((backend) => backend.usable) ? 0 : 1;
  } finally {
    await pool.destroy();
  }
}
