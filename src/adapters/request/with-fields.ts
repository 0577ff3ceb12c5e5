/**
 * `{ ...base, ...fields }`: the same keys in the same order (base's, each replaced where
 * `fields` has it, then the new ones), for the rewrites that add a field to a request.
 *
 * Why not always the spread: on Node 20, V8 takes a slow runtime path for an object spread
 * followed by keys the spread object lacks (0.8–1 µs for a request without `stream_options`,
 * against 0.2 µs here), and most rewrites add such a key. When every key of `fields` is already
 * in `base`, the spread is the fast one and is kept. Object.assign onto a new object writes the
 * same own data properties, except for one key: an own `__proto__` it would set as the
 * prototype, where the spread defines it as a property. No request reaches here with one (the
 * body parse refuses it, zod's output drops it), and should one ever, the spread is used.
 */
export function withFields<T extends object, F extends object>(base: T, fields: F): T & F {
  let adds = false;
  for (const key of Object.keys(fields)) if (!Object.hasOwn(base, key)) adds = true;
  if (!adds || Object.hasOwn(base, '__proto__') || Object.hasOwn(fields, '__proto__')) return { ...base, ...fields };
  return Object.assign({}, base, fields);
}
