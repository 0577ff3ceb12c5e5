/**
 * The config file svir runs with in the benchmarks: one backend, the mock, of the type under
 * test, every other setting at its default (log level aside). Concurrency is raised above the
 * load's connection count and the open-streams measure's 1,000 streams, so that svir's
 * per-backend queue (a deliberate limit in front of a real model server) does not throttle a
 * mock that answers at once.
 */
import { configSchema, type ConfigInput } from '../src/config/schema.js';

export const BENCH_MODEL = 'bench-model';

type LogLevel = NonNullable<NonNullable<ConfigInput['server']>['logLevel']>;

export function svirBenchConfig(options: {
  backendType: 'openai' | 'llamacpp';
  upstream: string;
  logLevel: LogLevel;
  port: number;
  /** `cluster.redis`: the Responses store and the limits in this Redis. */
  redis?: string | undefined;
}): ConfigInput {
  const config: ConfigInput = {
    server: { host: '127.0.0.1', port: options.port, logLevel: options.logLevel },
    backends: [
      {
        name: 'mock',
        type: options.backendType,
        url: options.upstream,
        models: [BENCH_MODEL],
        vision: true,
        // Above the 1,000 concurrent streams of the memory-per-stream measure.
        maxConcurrent: 2048,
        maxQueue: 1024,
      },
    ],
  };
  if (options.redis !== undefined) config.cluster = { redis: options.redis };
  // Refuse here, with zod's words, a config svir would refuse at start.
  configSchema.parse(config);
  return config;
}
