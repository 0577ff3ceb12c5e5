/**
 * `items.map(f)` for a rewrite that changes few items or none: the new array (unchanged items
 * kept as they are) when `f` changed one, undefined when it returned every item itself. Every
 * request's messages go through several such rewrites, and nearly always none changes.
 */
export function mapChanged<T>(items: readonly T[], f: (item: T) => T): T[] | undefined {
  let out: T[] | undefined;
  let at = 0;
  for (const item of items) {
    const next = f(item);
    if (out === undefined && next !== item) out = items.slice(0, at);
    out?.push(next);
    at += 1;
  }
  return out;
}
