/**
 * Whether a parsed JSON value nests arrays and objects deeper than `limit`, walked with an
 * explicit stack (a recursive walk would overflow on the very values it is meant to catch).
 * svir forwards a server's `logprobs` as they are: a value nested a hundred thousand levels
 * deep parses, but overflows JSON.stringify when the chunk is encoded. Pure.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    const children: unknown[] = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) stack.push({ value: child, depth });
  }
  return false;
}
