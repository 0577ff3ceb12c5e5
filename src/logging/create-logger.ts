/**
 * svir's logger (pino). Secrets are kept out twice: known key paths are redacted (`Authorization`,
 * `api-key`, config keys), and every configured key is censored wherever its value appears in a
 * finished line, so a key that slips into a message or an upstream error is still never written.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/schema.js';

export type { Logger } from 'pino';

export type LogLevel = Config['server']['logLevel'];

const REDACTED = '[redacted]';

/** Header and config paths that hold keys, at the depths they are logged. */
const REDACT_PATHS = [
  'authorization',
  'apiKey',
  'apiKeys',
  '["api-key"]',
  'headers.authorization',
  'headers["api-key"]',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["api-key"]',
  'req.headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["api-key"]',
  '*.apiKey',
  '*.apiKeys',
  'backends[*].apiKey',
  'config.backends[*].apiKey',
  'config.server.apiKeys',
];

/**
 * Shorter values are not censored by value: replacing a 3-letter string everywhere would wreck
 * every line; such keys are still redacted by path and never logged on purpose.
 */
const MIN_CENSORED_LENGTH = 4;

/** Every key in the config: svir's own and each backend's. */
export function collectSecrets(config: Config): string[] {
  const secrets = [...config.server.apiKeys];
  for (const backend of config.backends) if (backend.apiKey !== undefined) secrets.push(backend.apiKey);
  return secrets;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A function that replaces every secret (raw and as it reads inside a JSON string) in a line. */
export function createCensor(secrets: readonly string[]): (line: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_CENSORED_LENGTH) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  if (forms.size === 0) return (line) => line;
  // Longest first, so a key that contains another key is replaced whole.
  const pattern = new RegExp(
    [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'),
    'g',
  );
  return (line) => line.replace(pattern, REDACTED);
}

export interface CreateLoggerOptions {
  level: LogLevel;
  secrets: readonly string[];
  /**
   * Where lines go; stdout, line by line, when absent. The CLI passes stdout in batches
   * (create-log-destination.ts); tests pass a stream that collects them.
   */
  destination?: DestinationStream;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  const censor = createCensor(options.secrets);
  return pino(
    {
      level: options.level,
      base: { name: 'svir' },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: { streamWrite: censor },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * The logger for the one line per request. Its fields are svir's own (summaryLine: status,
 * model, tokens...), never a header nor a config object, so the paths redacted above cannot
 * occur in it; checking them, wildcards included, took four times the cost of writing the line,
 * on every request. Every key is still censored by value in the finished line (the hook is
 * shared), and level and destination are the root's.
 */
export function createRequestLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [], censor: REDACTED } });
}

