/**
 * The installed versions of what the floor and the comparison targets are made of, written into
 * every result: a ratio against "the pass-through" means little without them.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const MEASURED_PACKAGES = ['fastify', '@fastify/http-proxy', '@fastify/reply-from', 'undici', '@portkey-ai/gateway', '@hono/node-server'] as const;

const manifestSchema = z.object({ version: z.string() });

/**
 * bench/node_modules first (the bench's own package: the proxy plugin, Portkey, hono), then the
 * root's (svir's fastify and undici, which the floor loads too), as Node's lookup from bench/ finds them.
 */
const ROOTS = ['./node_modules/', '../node_modules/'];

function versionOf(name: string): string {
  // reply-from is the proxy plugin's dependency: its nested copy first, which is the one the
  // plugin loads when npm could not hoist it.
  const roots = name === '@fastify/reply-from' ? ['./node_modules/@fastify/http-proxy/node_modules/', ...ROOTS] : ROOTS;
  for (const root of roots) {
    try {
      const text = readFileSync(new URL(`${root}${name}/package.json`, import.meta.url), 'utf8');
      return manifestSchema.parse(JSON.parse(text)).version;
    } catch {
      // Not in this root.
    }
  }
  return 'missing';
}

/** Package name → installed version ('missing' when not installed). */
export function packageVersions(): Record<string, string> {
  return Object.fromEntries(MEASURED_PACKAGES.map((name) => [name, versionOf(name)]));
}
