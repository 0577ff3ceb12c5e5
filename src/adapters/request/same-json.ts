/**
 * Whether two JSON values would serialize to the same text, without serializing them: a
 * message holding a 50 MB image would otherwise be written out twice just to learn that a
 * rewrite changed nothing. Keys are compared in order, as the serialized text would be.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i];
    if (key === undefined || key !== keysB[i]) return false;
    if (!sameJson(Reflect.get(a, key), Reflect.get(b, key))) return false;
  }
  return true;
}
