/**
 * The built `svir` program, made once per test run however many contract files ask for it:
 * tests/first-run/build-cli.ts transpiles src/ into a fresh folder, which is then renamed to a
 * folder named after a hash of the sources. A second worker of the same run finds it there; a
 * worker that loses the rename race throws its own copy away. Folders of older sources are
 * removed once they are old enough that no run of those sources can still be using them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../../first-run/build-cli.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const cache = join(repo, 'node_modules', '.cache');
const PREFIX = 'svir-contract-';
/** Older builds than this are no longer used by any run. */
const STALE_MS = 30 * 60 * 1000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    })
    .sort();
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(join(repo, 'src')), join(repo, 'package.json')]) {
    hash.update(relative(repo, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function removeStaleBuilds(keep: string): void {
  if (!existsSync(cache)) return;
  for (const name of readdirSync(cache)) {
    if (!name.startsWith(PREFIX) || name === keep) continue;
    const path = join(cache, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another worker removed it first.
    }
  }
}

let built: string | undefined;

/** Path of the built `dist/cli.js`, its package root next to it. */
export function builtSvir(): { cli: string; root: string } {
  if (built === undefined) {
    const name = `${PREFIX}${sourceHash()}`;
    const root = join(cache, name);
    if (!existsSync(join(root, 'dist', 'cli.js'))) {
      const fresh = buildCli();
      try {
        renameSync(fresh.root, root);
      } catch {
        // Another worker built the same sources first: use theirs.
        fresh.remove();
      }
    }
    removeStaleBuilds(name);
    built = root;
  }
  return { cli: join(built, 'dist', 'cli.js'), root: built };
}
