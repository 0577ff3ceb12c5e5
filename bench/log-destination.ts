/**
 * Micro-benchmark of what a log line costs on its way to stdout (not part of `npm run bench`):
 * svir's logger (createLogger: redaction, the censor) on the CLI's destination
 * (src/logging/create-log-destination.ts), next to pino's asynchronous SonicBoom on fd 1 (one
 * thread-pool write at a time: the CLI's destination until 2 December 2026, and still
 * createLogger's default). Each run is a child process whose stdout is a pipe this process reads
 * to its end, as a supervisor would; the lines are shaped like the request line. Two patterns:
 * one line per loop turn (a lightly loaded server: each answer's line on its own) and 20 lines
 * per turn (a burst). CPU time of the whole child (its thread pool included) per line, from the
 * first measured line until this process has read the last one; median of the rounds, the
 * destinations taking turns.
 *
 *   node --import tsx bench/log-destination.ts [--rounds 5] [--lines 20000]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino, type DestinationStream } from 'pino';
import { createLogDestination } from '../src/logging/create-log-destination.js';
import { createLogger } from '../src/logging/create-logger.js';

const DESTINATIONS = {
  'sonic-boom async': (): DestinationStream => pino.destination({ dest: 1, sync: false }),
  'svir (create-log-destination)': (): DestinationStream => createLogDestination(),
} as const;
type DestinationName = keyof typeof DESTINATIONS;
const PER_TURN = [1, 20] as const;
const WARM_UP = 2_000;

interface ChildResult {
  cpuMicros: number;
  wallMicros: number;
}

async function child(name: DestinationName, perTurn: number, lines: number): Promise<void> {
  const logger = createLogger({ level: 'info', secrets: ['sk-bench-0123456789'], destination: DESTINATIONS[name]() });
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const log = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i += perTurn) {
      for (let j = 0; j < perTurn; j += 1) {
        logger.info(
          { reqId: `req-${i + j}`, method: 'POST', path: '/v1/chat/completions', status: 200, durationMs: 12.345, model: 'bench-model', backend: 'local', stream: true, ttftMs: 3.21, finishReason: 'stop', tokens: { prompt: 80, completion: 64 } },
          'request',
        );
      }
      await turn();
    }
  };
  await log(WARM_UP);
  // The warm-up is read to its end before the measure starts.
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await log(lines);
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const cpu = process.cpuUsage(cpu0);
  const result: ChildResult = { cpuMicros: cpu.user + cpu.system, wallMicros: (performance.now() - wall0) * 1000 };
  process.send?.(result, () => process.exit(0));
}

function run(name: DestinationName, perTurn: number, lines: number): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ['--import', 'tsx', self, '--child', name, '--per-turn', String(perTurn), '--lines', String(lines)], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let seen = 0;
    let wanted = WARM_UP;
    proc.stdout?.on('data', (data: Buffer) => {
      for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) seen += 1;
      if (seen === wanted) {
        proc.send('read');
        wanted = WARM_UP + lines;
      }
    });
    proc.once('message', (message) => resolve(message as ChildResult));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${name}: child exited ${code} after ${seen} lines`));
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    'per-turn': { type: 'string', default: '1' },
    lines: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
  },
});
const lines = Number(values.lines);

if (values.child !== undefined) {
  await child(values.child as DestinationName, Number(values['per-turn']), lines);
} else {
  const names = Object.keys(DESTINATIONS) as DestinationName[];
  for (const perTurn of PER_TURN) {
    const results = new Map<DestinationName, ChildResult[]>(names.map((name) => [name, []]));
    for (let round = 0; round < Number(values.rounds); round += 1) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) results.get(name)?.push(await run(name, perTurn, lines));
    }
    console.log(`${perTurn} line(s) per loop turn, ${lines} lines, median of ${values.rounds} rounds:`);
    for (const name of names) {
      const runs = results.get(name) ?? [];
      const cpu = median(runs.map((r) => r.cpuMicros / lines));
      const wall = median(runs.map((r) => r.wallMicros / lines));
      console.log(`  ${name.padEnd(30)} CPU ${cpu.toFixed(2).padStart(6)} µs/line   wall ${wall.toFixed(2).padStart(6)} µs/line`);
    }
  }
}
