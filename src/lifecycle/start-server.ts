/**
 * Builds svir, refuses an unsafe listen (no keys beyond loopback), listens, and asks every
 * backend for its models once, so the caller can show what is up. A backend that is down does
 * not stop svir: it is shown down and asked again when a request needs it.
 */
import type { FastifyInstance } from 'fastify';
import { checkListenSafety } from '../auth/check-listen-safety.js';
import { resolveApiKeys } from '../auth/resolve-api-keys.js';
import type { Config } from '../config/schema.js';
import type { BackendStatus } from '../router/create-model-registry.js';
import { buildServer } from '../server.js';
import type { ServerDeps } from './server-deps.js';

export interface StartedServer {
  app: FastifyInstance;
  /** `http://host:port` as bound (the real port when 0 was asked). */
  url: string;
  /** What a client takes as its base URL: `url` + `/v1`. */
  baseUrl: string;
  /** Each backend after the first look. */
  backends: BackendStatus[];
  /** How many keys svir asks clients for (0: no auth). */
  apiKeyCount: number;
}

function hostForUrl(host: string): string {
  // A wildcard address is reachable locally on loopback; IPv6 literals need brackets.
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export async function startServer(config: Config, deps: ServerDeps = {}): Promise<StartedServer> {
  const keys = resolveApiKeys(config.server.apiKeys, deps.env ?? process.env);
  const safety = checkListenSafety(config.server.host, keys, config.server.allowUnauthenticated);
  if (!safety.ok) throw new Error(safety.message);

  const app = buildServer(config, deps);
  if (safety.warning !== undefined) app.log.warn(safety.warning);
  await app.listen({ host: config.server.host, port: config.server.port });
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : config.server.port;
  const url = `http://${hostForUrl(config.server.host)}:${port}`;
  const backends = await app.svir.registry.refresh();
  return { app, url, baseUrl: `${url}/v1`, backends, apiKeyCount: keys.length };
}
