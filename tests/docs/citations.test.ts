/**
 * The contract lives in the repository: comments and docs cite it one way, by repo path and
 * anchor (`docs/contract.md#errors`, `docs/wire-protocol.md#tools, #usage`), and every such
 * citation names a file that exists and a heading it has. The sources and the docs cite nothing
 * outside the repository (the old `DESIGN §2`, `R§2.4`, `../shared/...` forms).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function filesUnder(dir: string, ends: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures' || name === 'results') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, ends));
    else if (ends.some((end) => name.endsWith(end))) out.push(path);
  }
  return out;
}

/** GitHub's anchor for each heading of a Markdown file (a repeated heading gets -1, -2, ...). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading === null) continue;
    const slug = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** A file's text with comment line starts (` * `, `// `) joined, so a citation may wrap. */
function joined(text: string): string {
  return text.replace(/\n\s*(?:\*(?!\/)|\/\/)\s?/g, ' ');
}

interface Citation {
  from: string;
  doc: string;
  anchor: string;
}

/** `docs/x.md#a` with any `, #b` after it, and Markdown links `](x.md#a)` relative to the file. */
function citationsIn(file: string): Citation[] {
  const text = joined(readFileSync(file, 'utf8'));
  const from = relative(root, file);
  const out: Citation[] = [];
  for (const match of text.matchAll(/(?<![\w./-])docs\/([\w-]+\.md)((?:#[\w-]+)(?:,\s*#[\w-]+)*)/g)) {
    for (const anchor of (match[2] ?? '').split(/,\s*/)) out.push({ from, doc: `docs/${match[1] ?? ''}`, anchor: anchor.slice(1) });
  }
  if (file.endsWith('.md')) {
    for (const match of text.matchAll(/\]\(([\w./-]+\.md)#([\w-]+)\)/g)) {
      out.push({ from, doc: relative(root, resolve(dirname(file), match[1] ?? '')), anchor: match[2] ?? '' });
    }
  }
  return out;
}

const sources = [
  ...filesUnder(join(root, 'src'), ['.ts', '.md']),
  // This file names the forms it looks for, not citations.
  ...filesUnder(join(root, 'tests'), ['.ts']).filter((file) => file !== fileURLToPath(import.meta.url)),
  ...filesUnder(join(root, 'bench'), ['.ts', '.md']),
  ...filesUnder(join(root, 'docs'), ['.md']),
  join(root, 'README.md'),
];

describe('citations of the contract and the wire protocol', () => {
  it('name a doc of the repository and a heading it has', () => {
    const citations = sources.flatMap(citationsIn);
    expect(citations.length).toBeGreaterThan(100);
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const { from, doc, anchor } of citations) {
      const path = join(root, doc);
      if (!existsSync(path)) {
        broken.push(`${from} cites ${doc}, which does not exist`);
        continue;
      }
      let known = anchors.get(doc);
      if (known === undefined) {
        known = anchorsOf(readFileSync(path, 'utf8'));
        anchors.set(doc, known);
      }
      if (!known.has(anchor)) broken.push(`${from} cites ${doc}#${anchor}, a heading ${doc} does not have`);
    }
    expect(broken).toEqual([]);
  });

  it('cite nothing outside the repository from the sources and the docs', () => {
    const outside = /§|\.\.\/shared\/|\bDESIGN\.md\b|\breference\/wire-protocol\.md\b/;
    const offenders = [...filesUnder(join(root, 'src'), ['.ts', '.md']), ...filesUnder(join(root, 'docs'), ['.md']), join(root, 'README.md')]
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (outside.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders, 'cite docs/contract.md#<section> or docs/wire-protocol.md#<section> instead').toEqual([]);
  });
});
