/**
 * Reads a `.cpuprofile` (from `node --cpu-prof`, or `npm run bench -- --profile`) and prints
 * where the time went: self time per function and file, and total (inclusive) time per
 * function, as shares of the sampled time. Paths are shortened to the repository.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--filter src/]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

export interface ProfileLine {
  name: string;
  selfShare: number;
  totalShare: number;
}

function label(frame: { functionName: string; url: string; lineNumber: number }): string {
  const fn = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  if (frame.url === '') return fn;
  const short = frame.url.replace(/^file:\/\//, '').replace(/^.*?\/(src|bench|dist|node_modules)\//, '$1/');
  return `${fn} ${short}:${frame.lineNumber + 1}`;
}

export function summarizeProfile(raw: unknown): { lines: ProfileLine[]; totalMs: number } {
  const profile = profileSchema.parse(raw);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let sum = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    sum += dt;
    const node = byId.get(id);
    if (node === undefined) return;
    const own = label(node.callFrame);
    self.set(own, (self.get(own) ?? 0) + dt);
    // Inclusive time: once per distinct function on the stack (recursion counted once).
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      if (frame === undefined) break;
      const name = label(frame.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + dt);
    }
  });
  const names = new Set([...self.keys(), ...total.keys()]);
  const lines = [...names].map((name) => ({
    name,
    selfShare: (self.get(name) ?? 0) / sum,
    totalShare: (total.get(name) ?? 0) / sum,
  }));
  return { lines, totalMs: sum / 1000 };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string' }, filter: { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined) {
    console.error('usage: bench/profile-summary.ts <file.cpuprofile> [--top N] [--filter text]');
    process.exit(2);
  }
  const top = Number(values.top ?? '25');
  const filter = values.filter;
  const { lines, totalMs } = summarizeProfile(JSON.parse(await readFile(file, 'utf8')));
  const pct = (x: number): string => `${(x * 100).toFixed(1).padStart(5)}%`;
  const keep = (l: ProfileLine): boolean => filter === undefined || l.name.includes(filter);
  console.log(`${file}: ${totalMs.toFixed(0)} ms sampled\n\nself time`);
  for (const l of lines.filter(keep).sort((a, b) => b.selfShare - a.selfShare).slice(0, top)) {
    console.log(`${pct(l.selfShare)}  ${l.name}`);
  }
  console.log('\ntotal time (inclusive)');
  for (const l of lines.filter(keep).sort((a, b) => b.totalShare - a.totalShare).slice(0, top)) {
    console.log(`${pct(l.totalShare)}  ${l.name}`);
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await main();
