import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';

/** Rows of the first table under `## Errors`: code → status as written. */
function readmeErrorTable(): Map<string, number> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Errors\n');
  expect(start, 'README has a "## Errors" section').toBeGreaterThanOrEqual(0);
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next === -1 ? undefined : next);
  const rows = new Map<string, number>();
  for (const line of section.split('\n')) {
    const match = /^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|\s*\S/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) rows.set(match[1], Number(match[2]));
  }
  return rows;
}

describe('README error table', () => {
  it('documents every catalogue code with its status, and nothing else', () => {
    const rows = readmeErrorTable();
    const catalogue = new Map(Object.entries(ERROR_CATALOGUE).map(([code, entry]) => [code, entry.status]));
    expect([...rows.keys()].sort()).toEqual([...catalogue.keys()].sort());
    for (const [code, status] of catalogue) expect(rows.get(code), code).toBe(status);
  });
});
