/**
 * The onRequest hook that guards every route but health with svir's own keys. It throws the
 * SvirError so the server's one error handler answers it (401, WWW-Authenticate: Bearer,
 * x-svir-error-source: proxy). The client's key stops here: adapters send each backend its own.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { pathOf } from '../path-of.js';
import { checkApiKey, digestApiKeys } from './check-api-key.js';

/** Probes must answer without a key: load balancers and supervisors hold none. */
export const AUTH_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** The part of a Fastify request the hook reads (FastifyRequest satisfies it). */
export interface AuthHookRequest {
  url: string;
  headers: IncomingHttpHeaders;
}

export type AuthHook = (request: AuthHookRequest) => Promise<void>;

/** `fastify.addHook('onRequest', createAuthHook(keys))`; with no keys it lets everything pass. */
export function createAuthHook(keys: readonly string[]): AuthHook {
  const digests = digestApiKeys(keys);
  return async (request) => {
    if (digests.digests.length === 0 || AUTH_EXEMPT_PATHS.has(pathOf(request.url))) return;
    const error = checkApiKey(request.headers.authorization, digests);
    if (error !== null) throw error;
  };
}
