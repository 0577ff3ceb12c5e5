/**
 * The ordinary call: `{base}/v1/chat/completions` (or another route) with
 * `Authorization: Bearer <apiKey>` when the backend has a key (docs/wire-protocol.md#endpoints).
 * The client's own key never gets here.
 */
import type { BackendInfo, UpstreamCall, UpstreamEndpoint, UpstreamRoute } from '../adapter.js';
import type { RequestDraft } from './request-draft.js';

export function bearerEndpoint(route: UpstreamRoute, backend: BackendInfo): UpstreamEndpoint {
  const base = backend.baseUrl.endsWith('/') ? backend.baseUrl : `${backend.baseUrl}/`;
  const headers: Record<string, string> = {};
  if (backend.config.apiKey !== undefined) headers.authorization = `Bearer ${backend.config.apiKey}`;
  return { url: `${base}${route}`, headers };
}

/** `GET {base}/v1/models`, with the backend's Bearer key when it has one. */
export function bearerModelsEndpoint(backend: BackendInfo): UpstreamEndpoint {
  const headers: Record<string, string> = {};
  if (backend.config.apiKey !== undefined) headers.authorization = `Bearer ${backend.config.apiKey}`;
  return { url: new URL('models', backend.baseUrl).toString(), headers };
}

interface KnownEndpoint {
  baseUrl: string;
  apiKey: string | undefined;
  endpoint: UpstreamEndpoint;
}

/**
 * Each backend's chat endpoint, made once (it depends on its config alone): made per request,
 * its URL was a new string that the URL cache (upstream/url-parts.ts) had to flatten and hash
 * again, beside a new headers object.
 *
 * Module state shared by the backend's streams, and it may be: what it holds is made from the
 * backend's config alone (its base URL and key, checked again on every use, so a reload that
 * changes them makes a new one), never from a request, so one stream cannot put in it anything
 * another would not compute itself; and nothing writes to a kept endpoint (open-chat-stream.ts
 * copies its headers into each request's own object). Keyed weakly by the backend's info, it
 * goes with the registry that made it.
 */
const chatEndpoints = new WeakMap<BackendInfo, KnownEndpoint>();

function chatEndpoint(backend: BackendInfo): UpstreamEndpoint {
  const known = chatEndpoints.get(backend);
  if (known !== undefined && known.baseUrl === backend.baseUrl && known.apiKey === backend.config.apiKey) return known.endpoint;
  const endpoint = bearerEndpoint('chat/completions', backend);
  chatEndpoints.set(backend, { baseUrl: backend.baseUrl, apiKey: backend.config.apiKey, endpoint });
  return endpoint;
}

export function bearerCall(draft: RequestDraft, backend: BackendInfo): UpstreamCall {
  const { url, headers } = chatEndpoint(backend);
  // Written out, not `{ ...endpoint, body, changes }`: on Node 20 new keys after a spread take
  // V8's slow path (docs/architecture.md, "Rules for code here").
  return { url, headers, body: draft.body, changes: [...draft.changes] };
}
