/**
 * Sequential requests over one keep-alive connection per target: time to the first byte of the
 * response body and to its end, in milliseconds. Targets take turns request by request, so a
 * drift of the machine touches every target alike.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { BenchRoute } from './routes.js';
import { seededRandom } from './seeded-random.js';

export interface Timing {
  ttfbMs: number;
  /** To the first byte of answer text (`"content":"` and a character): svir may hold a role-only first chunk. */
  ttftMs: number;
  totalMs: number;
}

export interface SequentialTarget {
  name: string;
  port: number;
  route: BenchRoute;
}

export interface SequentialResult {
  ttfbMedianMs: number;
  ttftMedianMs: number;
  totalMedianMs: number;
  /**
   * CPU time of the target's own process per request: the median over blocks of BLOCK_TURNS
   * turns (see cpuBlocks), the comparison least touched by other load on the machine. For
   * `direct` it is the mock's, which served every target's requests alike.
   */
  cpuUsPerRequest?: number;
  /** The same over all measured requests at once: every block's CPU time ÷ every request. */
  cpuUsPerRequestMean?: number;
  /** CPU time per request in each block, in order. */
  cpuUsPerRequestBlocks?: number[];
  /** CPU time of the process in each block of measured turns and the turns in it (runSequential's raw reading). */
  cpuBlocks?: CpuBlock[];
  /** Responses that were not 200 or did not end as a whole answer of their route. */
  failures: number;
  samples: number;
}

function once(agent: Agent, port: number, route: BenchRoute): Promise<Timing & { ok: boolean }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let ttfb = -1;
    let ttft = -1;
    let text = '';
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: route.path,
        agent,
        headers: {
          ...route.headers,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(route.body),
        },
      },
      (res) => {
        res.on('data', (chunk: Buffer) => {
          const now = performance.now() - start;
          if (ttfb < 0) ttfb = now;
          // The whole body is kept (some 10 KB): a Responses answer's last event is long.
          text += chunk.toString('latin1');
          if (ttft < 0 && route.firstText.test(text.slice(-chunk.length - 32))) ttft = now;
        });
        res.on('end', () => {
          const totalMs = performance.now() - start;
          resolve({
            ttfbMs: ttfb < 0 ? totalMs : ttfb,
            ttftMs: ttft < 0 ? totalMs : ttft,
            totalMs,
            ok: res.statusCode === 200 && route.complete(text),
          });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('sequential request timed out')));
    req.on('error', reject);
    req.end(route.body);
  });
}

export interface CpuBlock {
  cpuUs: number;
  turns: number;
}

/**
 * Turns per CPU block. A process's CPU time between two requests of a sequential run is its own
 * requests' plus whatever it does in the background while the other targets take their turns,
 * and that comes in bursts: after a load run, V8's memory reducer collects the heap once it is
 * idle (the floor spent ~100 ms in one such burst, seconds after its last load, against ~0.6 ms a
 * second otherwise). One burst inside 200 requests adds 0.5 ms to each of them, and whether it
 * falls inside a target's window is chance: the same build read 1.17x and 1.72x the floor in two
 * runs. The median over blocks of 10 turns leaves such a burst out, as the latency medians do;
 * the mean over all of them is kept beside it (cpuUsPerRequestMean).
 */
export const BLOCK_TURNS = 10;

/**
 * CPU time per request from a target's blocks, `requestsPerTurn` requests of its process in each
 * turn: the median over blocks, the mean over all, and each block's own.
 */
export function cpuPerRequest(
  blocks: readonly CpuBlock[],
  requestsPerTurn: number,
): Pick<SequentialResult, 'cpuUsPerRequest' | 'cpuUsPerRequestMean' | 'cpuUsPerRequestBlocks'> {
  const perBlock = blocks.map((b) => b.cpuUs / (b.turns * requestsPerTurn));
  const turns = blocks.reduce((n, b) => n + b.turns, 0);
  const cpuUs = blocks.reduce((n, b) => n + b.cpuUs, 0);
  return {
    cpuUsPerRequest: median(perBlock),
    cpuUsPerRequestMean: turns === 0 ? Number.NaN : cpuUs / (turns * requestsPerTurn),
    cpuUsPerRequestBlocks: perBlock,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * The order of one turn: a new shuffle each turn, so that every target follows every other as
 * often. A rotation kept the same neighbours: a target always went right after the same one and
 * met its leftover work (the end of its request, its log line, its GC) on the 2 cores; the
 * candidate, always after svir-openai, read 0.15 to 0.85 ms more TTFB than an identical build.
 */
export function turnOrder(n: number, random: () => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const a = order[i] ?? 0;
    order[i] = order[j] ?? 0;
    order[j] = a;
  }
  return order;
}

export async function runSequential(
  targets: readonly SequentialTarget[],
  options: {
    samples: number;
    warmup: number;
    /** The CPU time (µs) of a target's process so far; read for every target before and after each block of turns. */
    readCpuUs?: (name: string) => Promise<number>;
    blockTurns?: number;
  },
): Promise<Map<string, SequentialResult>> {
  const agents = new Map(targets.map((t) => [t.name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const timings = new Map<string, Timing[]>(targets.map((t) => [t.name, []]));
  const failures = new Map<string, number>(targets.map((t) => [t.name, 0]));
  const random = seededRandom(1);
  const blocks = new Map<string, CpuBlock[]>(targets.map((t) => [t.name, []]));
  const readCpu = async (): Promise<Map<string, number> | undefined> => {
    const read = options.readCpuUs;
    if (read === undefined) return undefined;
    const out = new Map<string, number>();
    for (const t of targets) out.set(t.name, await read(t.name));
    return out;
  };
  const closeBlock = (before: Map<string, number> | undefined, after: Map<string, number> | undefined, turns: number): void => {
    if (before === undefined || after === undefined || turns === 0) return;
    for (const t of targets) blocks.get(t.name)?.push({ cpuUs: (after.get(t.name) ?? 0) - (before.get(t.name) ?? 0), turns });
  };
  const turn = async (record: boolean): Promise<void> => {
    for (const k of turnOrder(targets.length, random)) {
      const target = targets[k];
      const agent = target === undefined ? undefined : agents.get(target.name);
      if (target === undefined || agent === undefined) continue;
      const timing = await once(agent, target.port, target.route);
      if (!timing.ok) failures.set(target.name, (failures.get(target.name) ?? 0) + 1);
      if (record) timings.get(target.name)?.push(timing);
    }
  };
  try {
    for (let i = 0; i < options.warmup; i++) await turn(false);
    const blockTurns = options.blockTurns ?? BLOCK_TURNS;
    let before = await readCpu();
    let turns = 0;
    for (let i = 0; i < options.samples; i++) {
      await turn(true);
      turns++;
      if (turns === blockTurns || i === options.samples - 1) {
        const after = await readCpu();
        closeBlock(before, after, turns);
        before = after;
        turns = 0;
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  const out = new Map<string, SequentialResult>();
  for (const t of targets) {
    const list = timings.get(t.name) ?? [];
    out.set(t.name, {
      ttfbMedianMs: median(list.map((x) => x.ttfbMs)),
      ttftMedianMs: median(list.map((x) => x.ttftMs)),
      totalMedianMs: median(list.map((x) => x.totalMs)),
      failures: failures.get(t.name) ?? 0,
      samples: list.length,
      ...(options.readCpuUs === undefined ? {} : { cpuBlocks: blocks.get(t.name) ?? [] }),
    });
  }
  return out;
}
