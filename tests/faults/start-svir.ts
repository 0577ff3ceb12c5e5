/**
 * svir for the reliability and security suites: the real buildServer with a config built from
 * a partial input (schema defaults fill the rest), listening on 127.0.0.1 port 0, its log
 * lines captured in memory so a suite can search them, and the environment injected (no
 * SVIR_API_KEYS from the machine running the tests).
 */
import type { FastifyInstance } from 'fastify';
import { configSchema, type Config, type ConfigInput } from '../../src/config/schema.js';
import { collectSecrets } from '../../src/logging/collect-secrets.js';
import { createLogger } from '../../src/logging/create-logger.js';
import type { LingerLimits } from '../../src/http/linger-after-refusal.js';
import { buildServer } from '../../src/server.js';

export interface RunningSvir {
  app: FastifyInstance;
  config: Config;
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Every log line svir wrote, as written (JSON text). */
  logs: string[];
  /** Idempotent. */
  close(): Promise<void>;
}

export interface StartSvirOptions {
  env?: Record<string, string | undefined>;
  logLevel?: Config['server']['logLevel'];
  /** Bounds of the read after an early refusal (413, 415, ...). */
  lingerLimits?: LingerLimits;
}

export async function startSvir(input: ConfigInput, options: StartSvirOptions = {}): Promise<RunningSvir> {
  const config = configSchema.parse({
    ...input,
    server: { logLevel: options.logLevel ?? 'info', ...input.server, host: '127.0.0.1', port: 0 },
  });
  const logs: string[] = [];
  const env = options.env ?? {};
  const envKeys = (env.SVIR_API_KEYS ?? '').split(',').filter((key) => key.length > 0);
  const logger = createLogger({
    level: config.server.logLevel,
    secrets: [...collectSecrets(config), ...envKeys],
    destination: { write: (line: string) => void logs.push(line) },
  });
  const app = buildServer(config, { logger, env, ...(options.lingerLimits === undefined ? {} : { lingerLimits: options.lingerLimits }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir is not listening on TCP');
  let closing: Promise<void> | undefined;
  return {
    app,
    config,
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    logs,
    close: () => {
      closing ??= app.close().then(() => undefined);
      return closing;
    },
  };
}
