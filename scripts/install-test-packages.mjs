#!/usr/bin/env node
// Installs the packages that only the tests and the benchmarks use (tests/package.json,
// bench/package.json, each with its own lockfile), so that `npm install` at the root installs
// svir and its build and test tools alone (README, "Set up"). `npm test` and `npm run bench` call
// it first: a folder is installed with `npm ci` when its node_modules is missing or was installed
// from another lockfile, and left alone otherwise (a stamp in node_modules records the lockfile's
// hash). Plain JavaScript on purpose: it runs before anything else is installed. A folder may
// hold packages of its own that come with it (SUB_PACKAGES): tests/node22, the clients that need
// Node 22, whose lockfile is kept apart (tests/node22/README.md).
//
//   node scripts/install-test-packages.mjs tests bench
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = '.svir-lockfile-hash';
/** Packages installed whenever their parent folder is named. */
const SUB_PACKAGES = { tests: ['tests/node22'] };

function lockfileHash(dir) {
  const hash = createHash('sha256');
  for (const name of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(dir, name)));
  return hash.digest('hex');
}

function installed(dir, hash) {
  const stamp = join(dir, 'node_modules', STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash;
}

const named = process.argv.slice(2);
const folders = named.flatMap((folder) => [folder, ...(SUB_PACKAGES[folder] ?? [])]);
if (named.length === 0) {
  console.error('usage: node scripts/install-test-packages.mjs <folder>... (tests, bench)');
  process.exit(2);
}

for (const folder of folders) {
  const dir = join(root, folder);
  const hash = lockfileHash(dir);
  if (installed(dir, hash)) continue;
  console.error(`install-test-packages: ${folder}/node_modules is missing or out of date: npm ci in ${folder}/`);
  // --prefix: the folder's own package, whatever npm_config_* the calling `npm test` set.
  const result = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`install-test-packages: npm ci in ${folder}/ failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(1);
  }
  writeFileSync(join(dir, 'node_modules', STAMP), `${hash}\n`);
}
