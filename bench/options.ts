/**
 * Benchmark settings from flags (`npm run bench -- --quick --rounds 2`) or environment
 * (`BENCH_DURATION=3 npm run bench`); flags win. `--quick` is a short run for a first look.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';

export const SECTIONS = ['load', 'sequential', 'normalizer', 'memory', 'streams'] as const;
export type Section = (typeof SECTIONS)[number];

/** Targets measured beside svir and the floor, for comparison only (`--compare`). */
export const COMPARISONS = ['bare-node', 'portkey', 'contract-minimum'] as const;
export type Comparison = (typeof COMPARISONS)[number];

const optionsSchema = z.object({
  /** A short run: the defaults below shrink, and the streams section leaves the comparison targets out. */
  quick: z.boolean(),
  durationS: z.coerce.number().positive(),
  rounds: z.coerce.number().int().positive(),
  /** Seconds of the same load, not measured, right before each measured load run. */
  preRollS: z.coerce.number().nonnegative(),
  connections: z.coerce.number().int().positive(),
  samples: z.coerce.number().int().positive(),
  warmup: z.coerce.number().int().nonnegative(),
  chunks: z.coerce.number().int().positive(),
  delayMs: z.coerce.number().nonnegative(),
  reasoning: z.enum(['off', 'field', 'tags']),
  toolCalls: z.boolean(),
  /** Seconds per normalizer scenario and round. */
  microS: z.coerce.number().positive(),
  memoryBodyMb: z.coerce.number().positive(),
  /** Concurrent slow streams of the memory-per-open-stream measure. */
  streams: z.coerce.number().int().positive(),
  /** The mock's delay between chunks in that measure. */
  streamDelayMs: z.coerce.number().nonnegative(),
  sections: z.array(z.enum(SECTIONS)).min(1),
  compare: z.array(z.enum(COMPARISONS)),
  svirFrom: z.enum(['dist', 'src']),
  /** Another build's CLI to run as svir (a candidate change measured against the same floor). */
  svirEntry: z.string().optional(),
  /** A candidate build's CLI, measured as one more target (`candidate-openai`) in the same run. */
  candidate: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  profile: z.boolean(),
  /** Also run svir with `cluster.redis` against a redis-server on loopback (target svir-cluster). */
  redis: z.boolean(),
  resultsDir: z.string(),
});
export type BenchOptions = z.infer<typeof optionsSchema>;

const HELP = `npm run bench -- [flags]   (each flag also reads BENCH_<NAME>, e.g. BENCH_DURATION=3)
  --quick               short run: 2 rounds of 2 s (one in each order), 50 sequential samples, short
                        micro runs, and the streams section without the comparison targets
  --duration S          seconds per load run (10)            --rounds N       load rounds (4)
  --pre-roll S          unmeasured load right before each measured run (1)
  --connections N       load connections (32)                --samples N      sequential samples (200)
  --warmup N            sequential warm-up requests (20)     --chunks N       answer chunks (64)
  --delay MS            mock delay between chunks (0)        --reasoning off|field|tags (off)
  --tools               the mock answers with interleaved tool calls
  --micro S             seconds per normalizer scenario (2)  --memory-mb N    image request body size (50)
  --streams N           concurrent slow streams (1000)       --stream-delay MS  their chunks' pacing (250)
  --only a,b            sections: load,sequential,normalizer,memory,streams (all)
  --compare a,b|none    comparison targets beside svir and the floor: bare-node,portkey,contract-minimum (all)
  --svir-from dist|src  run svir from the build (default) or the sources
  --svir-entry FILE     run this CLI file as svir instead (e.g. a patched copy of dist/cli.js)
  --candidate FILE      also run this CLI file (openai backend) as target candidate-openai
  --log-level L         svir's log level (info, its default)
  --profile             --cpu-prof the svir processes into <results>/profiles
  --redis               also run svir-cluster: svir with cluster.redis against a redis-server on loopback
  --results DIR         where JSON results go (bench/results)`;

const listOf = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export function readOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      'pre-roll': { type: 'string' },
      connections: { type: 'string' },
      samples: { type: 'string' },
      warmup: { type: 'string' },
      chunks: { type: 'string' },
      delay: { type: 'string' },
      reasoning: { type: 'string' },
      tools: { type: 'boolean' },
      micro: { type: 'string' },
      'memory-mb': { type: 'string' },
      streams: { type: 'string' },
      'stream-delay': { type: 'string' },
      only: { type: 'string' },
      compare: { type: 'string' },
      'svir-from': { type: 'string' },
      'svir-entry': { type: 'string' },
      candidate: { type: 'string' },
      'log-level': { type: 'string' },
      profile: { type: 'boolean' },
      redis: { type: 'boolean' },
      results: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    console.log(HELP);
    process.exit(0);
  }
  const quick = values.quick === true || env.BENCH_QUICK === '1';
  const pick = (flag: string | undefined, envName: string, normal: string, short: string): string =>
    flag ?? env[`BENCH_${envName}`] ?? (quick ? short : normal);
  const parsed = optionsSchema.safeParse({
    quick,
    durationS: pick(values.duration, 'DURATION', '10', '2'),
    rounds: pick(values.rounds, 'ROUNDS', '4', '2'),
    preRollS: pick(values['pre-roll'], 'PRE_ROLL', '1', '1'),
    connections: pick(values.connections, 'CONNECTIONS', '32', '32'),
    samples: pick(values.samples, 'SAMPLES', '200', '50'),
    warmup: pick(values.warmup, 'WARMUP', '20', '10'),
    chunks: pick(values.chunks, 'CHUNKS', '64', '64'),
    delayMs: pick(values.delay, 'DELAY', '0', '0'),
    reasoning: pick(values.reasoning, 'REASONING', 'off', 'off'),
    toolCalls: values.tools === true || env.BENCH_TOOLS === '1',
    microS: pick(values.micro, 'MICRO', '2', '0.5'),
    memoryBodyMb: pick(values['memory-mb'], 'MEMORY_MB', '50', '50'),
    streams: pick(values.streams, 'STREAMS', '1000', '1000'),
    streamDelayMs: pick(values['stream-delay'], 'STREAM_DELAY', '250', '250'),
    sections: listOf(pick(values.only, 'ONLY', SECTIONS.join(','), SECTIONS.join(','))),
    compare: listOf(pick(values.compare, 'COMPARE', COMPARISONS.join(','), COMPARISONS.join(','))).filter((c) => c !== 'none'),
    svirFrom: pick(values['svir-from'], 'SVIR_FROM', 'dist', 'dist'),
    svirEntry: values['svir-entry'] ?? env.BENCH_SVIR_ENTRY,
    candidate: values.candidate ?? env.BENCH_CANDIDATE,
    logLevel: pick(values['log-level'], 'LOG_LEVEL', 'info', 'info'),
    profile: values.profile === true || env.BENCH_PROFILE === '1',
    redis: values.redis === true || env.BENCH_REDIS === '1',
    resultsDir: pick(values.results, 'RESULTS', new URL('./results/', import.meta.url).pathname, new URL('./results/', import.meta.url).pathname),
  });
  if (!parsed.success) {
    console.error(`bad benchmark options:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}\n\n${HELP}`);
    process.exit(2);
  }
  return parsed.data;
}
