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

type CallFrame = z.infer<typeof profileSchema>['nodes'][number]['callFrame'];

/** A profile's samples with their time, split into busy and idle, and the stack of each. */
interface ProfileTree {
  /** Samples of the time the process was busy (idle ones left out). */
  busySamples: { id: number; dt: number; frame: CallFrame }[];
  /** µs busy and idle. */
  busy: number;
  idle: number;
  /** The frames on the stack of a sample's node, innermost first. */
  stack(id: number): CallFrame[];
}

function readProfileTree(raw: unknown): ProfileTree {
  const profile = profileSchema.parse(raw);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const busySamples: ProfileTree['busySamples'] = [];
  let busy = 0;
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
    busy += dt;
    busySamples.push({ id, dt, frame: node.callFrame });
  });
  const stack = (id: number): CallFrame[] => {
    const frames: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur);
      if (node === undefined) break;
      frames.push(node.callFrame);
    }
    return frames;
  };
  return { busySamples, busy, idle, stack };
}

/** Busy time per call stack (innermost `depth` frames) of the samples whose own frame matches `text`. */
export function callersOf(raw: unknown, text: string, depth = 6): { stack: string; share: number }[] {
  const tree = readProfileTree(raw);
  const stacks = new Map<string, number>();
  for (const { id, dt, frame } of tree.busySamples) {
    if (!label(frame).includes(text)) continue;
    const key = tree.stack(id).slice(0, depth).map(label).join('\n    < ');
    stacks.set(key, (stacks.get(key) ?? 0) + dt);
  }
  return [...stacks].map(([stack, t]) => ({ stack, share: t / tree.busy })).sort((a, b) => b.share - a.share);
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
  const tree = readProfileTree(raw);
  const callers = new Map<string, number>();
  for (const { id, dt } of tree.busySamples) {
    // The outermost matching frame on the stack, and who called it.
    const frames = tree.stack(id);
    let caller: string | undefined;
    frames.forEach((frame, i) => {
      if (!label(frame).includes(text)) return;
      const up = frames[i + 1];
      caller = up === undefined ? '(root)' : label(up);
    });
    if (caller !== undefined) callers.set(caller, (callers.get(caller) ?? 0) + dt);
  }
  return [...callers].map(([caller, t]) => ({ caller, share: t / tree.busy })).sort((a, b) => b.share - a.share);
}

export function summarizeProfile(raw: unknown): { lines: ProfileLine[]; places: ProfileLine[]; totalMs: number; idleShare: number } {
  const tree = readProfileTree(raw);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const { id, dt, frame } of tree.busySamples) {
    const own = label(frame);
    self.set(own, (self.get(own) ?? 0) + dt);
    const where = place(frame.url);
    byPlace.set(where, (byPlace.get(where) ?? 0) + dt);
    // Inclusive time: once per distinct function on the stack (recursion counted once).
    for (const name of new Set(tree.stack(id).map(label))) total.set(name, (total.get(name) ?? 0) + dt);
  }
  const sum = tree.busy;
  const names = new Set([...self.keys(), ...total.keys()]);
  const lines = [...names].map((name) => ({
    name,
    selfShare: (self.get(name) ?? 0) / sum,
    totalShare: (total.get(name) ?? 0) / sum,
  }));
  const places = [...byPlace].map(([name, t]) => ({ name, selfShare: t / sum, totalShare: t / sum }));
  return { lines, places, totalMs: sum / 1000, idleShare: tree.idle / (tree.idle + sum) };
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
