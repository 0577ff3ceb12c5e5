/**
 * svir's logger (pino). Secrets are kept out twice: known key paths are redacted (`Authorization`,
 * `api-key`, config keys), and every configured key is censored wherever its value appears in a
 * finished line (create-censor.ts), so a key that slips into a message or an upstream error is
 * still never written.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { createCensor, REDACTED } from './create-censor.js';

export type { Logger } from 'pino';

export type LogLevel = Config['server']['logLevel'];

/** Header and config paths that hold keys, at the depths they are logged. */
const REDACT_PATHS: readonly string[] = [
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

export interface CreateLoggerOptions {
  level: LogLevel;
  secrets: readonly string[];
  /**
   * Where lines go; stdout through pino's own asynchronous destination when absent. The CLI
   * passes stdout with each loop turn's lines in one write (create-log-destination.ts); tests pass
   * a stream that collects them.
   */
  destination?: DestinationStream;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  const censor = createCensor(options.secrets);
  return pino(
    {
      level: options.level,
      base: { name: 'svir' },
      // pino's options take a list of their own (one logger per server: not a per-request cost).
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      hooks: { streamWrite: censor },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
