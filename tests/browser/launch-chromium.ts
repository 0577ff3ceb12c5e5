/**
 * The system's Chromium (Debian's `chromium` package), driven by playwright-core, which downloads
 * no browser: headless, with a fresh profile directory, no background traffic and no proxy (it
 * gets PATH alone of the environment, and svir is on loopback). A machine without it fails the
 * tests that need it with a message saying how to install it; nothing is skipped (.ci/run
 * installs it).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env['SVIR_CHROMIUM'] ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-proxy-server',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: the live page's browser tests need it. ` +
        'Install it with `apt-get update && apt-get install -y chromium` (as root; .ci/run does), or set SVIR_CHROMIUM to its path.',
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'svir-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: profile },
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
