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
   * CPU time of the target's own process per request over the measured requests, which take
   * turns request by request: the comparison least touched by other load on the machine. For
   * `direct` it is the mock's, which served every target's requests alike.
   */
  cpuUsPerRequest?: number;
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
  options: { samples: number; warmup: number; beforeMeasure?: () => Promise<void> },
): Promise<Map<string, SequentialResult>> {
  const agents = new Map(targets.map((t) => [t.name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const timings = new Map<string, Timing[]>(targets.map((t) => [t.name, []]));
  const failures = new Map<string, number>(targets.map((t) => [t.name, 0]));
  const random = seededRandom(1);
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
    await options.beforeMeasure?.();
    for (let i = 0; i < options.samples; i++) await turn(true);
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
    });
  }
  return out;
}
