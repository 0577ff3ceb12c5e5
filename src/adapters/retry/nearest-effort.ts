/** Efforts in increasing order, as the protocol names them. */
export const EFFORT_ORDER = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type Effort = (typeof EFFORT_ORDER)[number];

function isEffort(value: string): value is Effort {
  return (EFFORT_ORDER as readonly string[]).includes(value);
}

/**
 * The supported effort nearest to the one asked; on a tie the higher one, so the model reasons
 * at least as much as asked. Undefined when nothing supported is a known effort.
 */
export function nearestEffort(asked: string, supported: readonly string[]): Effort | undefined {
  const askedRank = EFFORT_ORDER.findIndex((effort) => effort === asked);
  let best: { effort: Effort; distance: number; rank: number } | undefined;
  for (const candidate of supported) {
    if (!isEffort(candidate) || candidate === asked) continue;
    const rank = EFFORT_ORDER.indexOf(candidate);
    const distance = askedRank < 0 ? rank : Math.abs(rank - askedRank);
    if (best === undefined || distance < best.distance || (distance === best.distance && rank > best.rank)) {
      best = { effort: candidate, distance, rank };
    }
  }
  return best?.effort;
}
