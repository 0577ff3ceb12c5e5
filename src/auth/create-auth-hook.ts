/**
 * The onRequest hook that guards every route but health and the live page's own files with
 * svir's own keys. It throws the
 * SvirError so the server's one error handler answers it (401, WWW-Authenticate: Bearer,
 * x-svir-error-source: proxy). The client's key stops here: adapters send each backend its own.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { acceptsHtml } from '../monitor/accepts-html.js';
import { PAGE_SCRIPT_PATH, PAGE_STYLE_PATH } from '../monitor/page-paths.js';
import { pathOf } from '../http/path-of.js';
import { checkApiKey, digestApiKeys } from './check-api-key.js';

/**
 * Probes must answer without a key: load balancers and supervisors hold none. The live page's
 * script and style hold no data, and a browser loads them before it has a key to send
 * (docs/live-page.md); the page's data endpoints ask for the key like every API route.
 */
export const AUTH_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', PAGE_SCRIPT_PATH, PAGE_STYLE_PATH]);

/** The live page itself, `GET /` from a browser, is public too; `/` for any other request is not. */
function isExempt(request: AuthHookRequest): boolean {
  const path = pathOf(request.url);
  if (AUTH_EXEMPT_PATHS.has(path)) return true;
  return path === '/' && (request.method === 'GET' || request.method === 'HEAD') && acceptsHtml(request.headers.accept);
}

/** The part of a Fastify request the hook reads (FastifyRequest satisfies it). */
export interface AuthHookRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export type AuthHook = (request: AuthHookRequest) => Promise<void>;

/** `fastify.addHook('onRequest', createAuthHook(keys))`; with no keys it lets everything pass. */
export function createAuthHook(keys: readonly string[]): AuthHook {
  const digests = digestApiKeys(keys);
  return async (request) => {
    if (digests.digests.length === 0 || isExempt(request)) return;
    // Anthropic's clients send the key as `x-api-key` (Claude Code with ANTHROPIC_API_KEY): taken as a Bearer token when no Authorization came.
    const apiKey = request.headers['x-api-key'];
    const header = request.headers.authorization ?? (typeof apiKey === 'string' ? `Bearer ${apiKey}` : undefined);
    const error = checkApiKey(header, digests);
    if (error !== null) throw error;
  };
}
