/**
 * Spreads the requests for a model over the backends that serve it: backends not known to be
 * down first, then the least loaded (running plus queued requests), and among equals a rotation
 * per model (round robin), so that two idle servers take turns rather than one taking all.
 * The order it returns is also the failover order. Pure apart from its rotation counters.
 */

export interface BalanceFacts {
  /** The last contact with the backend failed. */
  down: boolean;
  /** Requests running on it plus requests waiting for it. */
  load: number;
}

export interface Balancer {
  /** `candidates` in the order to try them; `key` names the rotation (the model). */
  order<T>(key: string, candidates: readonly T[], facts: (candidate: T) => BalanceFacts): T[];
  /** Forgets the rotations (after a reload, models may have moved). */
  reset(): void;
}

export function createBalancer(): Balancer {
  const turns = new Map<string, number>();

  return {
    order(key, candidates, facts) {
      if (candidates.length <= 1) return [...candidates];
      const turn = turns.get(key) ?? 0;
      turns.set(key, (turn + 1) % candidates.length);
      const rotated = candidates.map((_, i) => candidates[(i + turn) % candidates.length]).filter((c) => c !== undefined);
      const ranked = rotated.map((candidate) => ({ candidate, ...facts(candidate) }));
      // Array.prototype.sort is stable: equals keep the rotation's order.
      ranked.sort((a, b) => Number(a.down) - Number(b.down) || a.load - b.load);
      return ranked.map((entry) => entry.candidate);
    },
    reset() {
      turns.clear();
    },
  };
}
