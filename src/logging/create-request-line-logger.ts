/**
 * The logger for the one line per request (request-summary.ts). Its fields are svir's own
 * (summaryLine: status, model, tokens...), never a header nor a config object, so the paths
 * createLogger redacts (create-logger.ts) cannot occur in it; checking them, wildcards included,
 * took four times the cost of writing the line, on every request. Every key is still censored by
 * value in the finished line (the hook is shared), and level and destination are the root's.
 */
import type { Logger } from 'pino';
import { REDACTED } from './create-censor.js';

export function createRequestLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [], censor: REDACTED } });
}
