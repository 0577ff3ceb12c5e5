/**
 * Whether an Azure content-filter result blocks anything: a `filtered: true` anywhere in it
 * (per category `{filtered, severity}`, `custom_blocklists: [{filtered, id}]`, protected
 * material `{filtered, detected}`). `detected: true` alone (a filter set to annotate only) does
 * not block (docs/wire-protocol.md#content-filtering).
 */
export function hasFilteredVerdict(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => hasFilteredVerdict(item));
  if (typeof value !== 'object' || value === null) return false;
  const entries: [string, unknown][] = Object.entries(value);
  return entries.some(([key, item]) => (key === 'filtered' ? item === true : hasFilteredVerdict(item)));
}
