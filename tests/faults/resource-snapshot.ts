/**
 * What the process holds open: libuv resources by type (`process.getActiveResourcesInfo()`:
 * timers, sockets, servers, ...) and the listeners on `process` by event. A suite takes one
 * snapshot before it starts anything and compares after it closed everything, so that what
 * the test framework itself holds cancels out.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ResourceSnapshot {
  counts: Record<string, number>;
}

export function resourceSnapshot(): ResourceSnapshot {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) {
    counts[`resource ${type}`] = (counts[`resource ${type}`] ?? 0) + 1;
  }
  for (const event of process.eventNames()) {
    if (typeof event !== 'string') continue;
    counts[`process listener ${event}`] = process.listenerCount(event);
  }
  return { counts };
}

/** What exceeds the baseline now, by kind (empty: nothing left behind). */
export function resourcesAbove(baseline: ResourceSnapshot, now: ResourceSnapshot = resourceSnapshot()): Record<string, number> {
  const above: Record<string, number> = {};
  for (const [kind, count] of Object.entries(now.counts)) {
    const extra = count - (baseline.counts[kind] ?? 0);
    if (extra > 0) above[kind] = extra;
  }
  return above;
}

/**
 * Sockets close a few ticks after `close()` resolves; give them up to `settleMs` to go, then
 * say what is still above the baseline. Sleeping here uses a timer of its own, which is gone
 * by the time the last snapshot is taken.
 */
export async function waitForResourcesBack(baseline: ResourceSnapshot, settleMs = 2_000): Promise<Record<string, number>> {
  const until = Date.now() + settleMs;
  let above = resourcesAbove(baseline);
  while (Object.keys(above).length > 0 && Date.now() < until) {
    await sleep(20);
    above = resourcesAbove(baseline);
  }
  return above;
}
