/**
 * The JSON events a CLI prints one a line (`codex exec --json`, Claude Code's and Qwen Code's
 * `--output-format stream-json`, pi's `--mode json`), as far as a schema reads them: lines that are
 * not JSON (a banner, a warning) or not of the schema's shape are left out.
 */
import type { z } from 'zod';

export function jsonLines<T>(text: string, schema: z.ZodType<T>): T[] {
  const events: T[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) events.push(parsed.data);
  }
  return events;
}
