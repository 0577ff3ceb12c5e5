/**
 * Reads one series out of Prometheus text: the sum of every line of `name` whose labels include
 * `labels` (undefined when none matches). Tests read metrics the way a scraper does.
 */
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function readMetric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = new Map<string, string>();
    for (const pair of (match[2] ?? '').matchAll(LABEL)) found.set(pair[1] ?? '', pair[2] ?? '');
    if (!Object.entries(labels).every(([key, want]) => found.get(key) === want)) continue;
    total = (total ?? 0) + Number(match[3]);
  }
  return total;
}
