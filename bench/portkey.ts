/**
 * Portkey's AI gateway (npm `@portkey-ai/gateway`, pinned in bench/package.json), the comparison issue
 * 15 names, run the way its package runs it: `node build/start-server.js --port=N --headless`
 * (its bin; headless: no web console and no log stream for it). Its package asks for
 * `@hono/node-server ^1.3.3` and `hono ^4.9.7`; bench/package.json pins the versions of the gateway's
 * own lockfile at v1.15.2 (1.13.5, 4.9.7, @hono/node-ws 1.2.0), which its Docker image runs:
 * with the newest @hono/node-server (1.19.19) every answer fails with `TypeError: immutable`
 * (the gateway appends headers to the upstream fetch response's headers).
 *
 * What it is told, read from its build: the provider `openai` with a custom host, so it sends
 * `POST {x-portkey-custom-host}/chat/completions` to the mock and streams the answer back; the
 * `authorization` header becomes the provider's API key, as a client of Portkey would send it.
 *
 * What it contacts by itself, read from its build: no telemetry; Redis at start when
 * REDIS_CONNECTION_STRING is set; a proxy from HTTP(S)_PROXY; the other services it names
 * (guardrails, file storage, cloud token and metadata endpoints) only when a request's config or
 * provider asks. Its `serve` call names no host, which binds every interface. So its process gets
 * an environment of PATH alone, and loopback-only.mjs preloaded: it listens on 127.0.0.1, and a
 * connection or name lookup beyond loopback fails and is counted (`networkRefusals` in the
 * results, which must stay 0). A run under strace saw one outgoing connection, to the mock.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { CHAT_ROUTE, type BenchRoute } from './routes.js';

const require = createRequire(import.meta.url);

/** The headers that route a chat request through Portkey to an OpenAI-compatible server at `upstreamOrigin`. */
export function portkeyHeaders(upstreamOrigin: string): Record<string, string> {
  return {
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${upstreamOrigin.replace(/\/+$/, '')}/v1`,
    authorization: 'Bearer bench-key',
  };
}

/** The benchmark's chat request, sent through Portkey to the mock at `upstreamOrigin`. */
export function portkeyChatRoute(upstreamOrigin: string): BenchRoute {
  return { ...CHAT_ROUTE, headers: portkeyHeaders(upstreamOrigin) };
}

const packageSchema = z.object({ version: z.string(), bin: z.union([z.string(), z.record(z.string(), z.string())]) });

/** The installed gateway: its version and the file its bin runs. */
export function portkeyPackage(): { version: string; entry: string } {
  const manifest = require.resolve('@portkey-ai/gateway/package.json');
  const parsed = packageSchema.parse(require('@portkey-ai/gateway/package.json'));
  const bin = typeof parsed.bin === 'string' ? parsed.bin : Object.values(parsed.bin)[0];
  if (bin === undefined) throw new Error('@portkey-ai/gateway names no bin');
  return { version: parsed.version, entry: join(dirname(manifest), bin) };
}

export function portkeyArgs(port: number): string[] {
  return [`--port=${port}`, '--headless'];
}

/** PATH alone: no keys, proxies, Redis or cloud settings of the user's environment reach it. */
export function portkeyEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.PATH === undefined ? {} : { PATH: env.PATH };
}

/** Portkey answers this without an upstream (`AI Gateway says hey!`): it is up. */
export const PORTKEY_READY_PATH = '/';
