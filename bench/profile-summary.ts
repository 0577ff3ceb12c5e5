/**
 * Reads a `.cpuprofile` (from `node --cpu-prof`, or `npm run bench -- --profile`) and prints
 * where the time went: self time per function and file, and total (inclusive) time per
 * function, and self time per file (or package), as shares of the busy time (idle excluded).
 * Paths are shortened to the repository.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--filter src/]
 *   ... --callers <text>   the stacks (6 frames) under which functions matching <text> ran
 *   ... --parents <text>   inclusive time of functions matching <text>, by their caller
 *   ... --skip-ms <ms>     leave out the first <ms> of the profile (start-up)
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

/** Where a frame's code lives: a file of the project, a package, node's internals, or V8's. */
function place(url: string): string {
  if (url === '') return '(native: V8 builtins, GC, syscalls)';
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (pkg?.[1] !== undefined) return `package ${pkg[1]}`;
  if (path.startsWith('node:')) return 'node internals';
  return path.replace(/^.*?\/(src|bench|dist)\//, '$1/');
}

/** Busy time per call stack (innermost `depth` frames) of the samples whose own frame matches `text`. */
export function callersOf(raw: unknown, text: string, depth = 6): { stack: string; share: number }[] {
  const profile = profileSchema.parse(raw);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    busy += dt;
    if (!label(node.callFrame).includes(text)) return;
    const frames: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined && frames.length < depth; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      if (frame === undefined) break;
      frames.push(label(frame.callFrame));
    }
    const key = frames.join('\n    < ');
    stacks.set(key, (stacks.get(key) ?? 0) + dt);
  });
  return [...stacks].map(([stack, t]) => ({ stack, share: t / busy })).sort((a, b) => b.share - a.share);
}

/** The profile without its first `skipMs` (start-up, warm-up), so shares are of the steady state. */
export function skipStart(raw: unknown, skipMs: number): unknown {
  const profile = profileSchema.parse(raw);
  let t = 0;
  let first = profile.samples.length;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= skipMs * 1000) {
      first = i;
      break;
    }
  }
  return { ...profile, samples: profile.samples.slice(first), timeDeltas: profile.timeDeltas.slice(first) };
}

/** Inclusive busy time of functions matching `text`, split by the function that called them. */
export function parentsOf(raw: unknown, text: string): { caller: string; share: number }[] {
  const profile = profileSchema.parse(raw);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const callers = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    busy += dt;
    // The outermost matching frame on the stack, and who called it.
    let caller: string | undefined;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      if (frame === undefined) break;
      if (label(frame.callFrame).includes(text)) {
        const up = parent.get(cur);
        const upFrame = up === undefined ? undefined : byId.get(up);
        caller = upFrame === undefined ? '(root)' : label(upFrame.callFrame);
      }
    }
    if (caller !== undefined) callers.set(caller, (callers.get(caller) ?? 0) + dt);
  });
  return [...callers].map(([caller, t]) => ({ caller, share: t / busy })).sort((a, b) => b.share - a.share);
}

export function summarizeProfile(raw: unknown): { lines: ProfileLine[]; places: ProfileLine[]; totalMs: number; idleShare: number } {
  const profile = profileSchema.parse(raw);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let sum = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    // Waiting for I/O is not cost: shares are of the time the process was busy.
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    sum += dt;
    const own = label(node.callFrame);
    self.set(own, (self.get(own) ?? 0) + dt);
    const where = place(node.callFrame.url);
    byPlace.set(where, (byPlace.get(where) ?? 0) + dt);
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
  const places = [...byPlace].map(([name, t]) => ({ name, selfShare: t / sum, totalShare: t / sum }));
  return { lines, places, totalMs: sum / 1000, idleShare: idle / (idle + sum) };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string' }, filter: { type: 'string' }, callers: { type: 'string' }, depth: { type: 'string' }, parents: { type: 'string' }, 'skip-ms': { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined) {
    console.error('usage: bench/profile-summary.ts <file.cpuprofile> [--top N] [--filter text]');
    process.exit(2);
  }
  const top = Number(values.top ?? '25');
  const filter = values.filter;
  const whole: unknown = JSON.parse(await readFile(file, 'utf8'));
  const raw = values['skip-ms'] === undefined ? whole : skipStart(whole, Number(values['skip-ms']));
  const pct = (x: number): string => `${(x * 100).toFixed(1).padStart(5)}%`;
  if (values.parents !== undefined) {
    for (const { caller, share } of parentsOf(raw, values.parents).slice(0, top)) console.log(`${pct(share)}  ${caller}`);
    return;
  }
  if (values.callers !== undefined) {
    for (const { stack, share } of callersOf(raw, values.callers, Number(values.depth ?? '6')).slice(0, top)) console.log(`${pct(share)}  ${stack}\n`);
    return;
  }
  const { lines, places, totalMs, idleShare } = summarizeProfile(raw);
  const keep = (l: ProfileLine): boolean => filter === undefined || l.name.includes(filter);
  console.log(`${file}: ${totalMs.toFixed(0)} ms busy (${pct(idleShare)} of the run idle); shares below are of the busy time\n\nself time by place`);
  for (const l of places.sort((a, b) => b.selfShare - a.selfShare).slice(0, top)) console.log(`${pct(l.selfShare)}  ${l.name}`);
  console.log('\nself time');
  for (const l of lines.filter(keep).sort((a, b) => b.selfShare - a.selfShare).slice(0, top)) {
    console.log(`${pct(l.selfShare)}  ${l.name}`);
  }
  console.log('\ntotal time (inclusive)');
  for (const l of lines.filter(keep).sort((a, b) => b.totalShare - a.totalShare).slice(0, top)) {
    console.log(`${pct(l.totalShare)}  ${l.name}`);
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await main();
