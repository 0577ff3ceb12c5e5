/**
 * The ordinary call: `{base}/v1/chat/completions` (or another route) with
 * `Authorization: Bearer <apiKey>` when the backend has a key (docs/wire-protocol.md#endpoints).
 * The client's own key never gets here.
 */
import type { BackendInfo, UpstreamCall, UpstreamEndpoint, UpstreamRoute } from '../adapter.js';
import type { RequestDraft } from './request-draft.js';

/** The backend's key as `Authorization: Bearer`, when it has one: a new object for each call. */
function keyHeaders(backend: BackendInfo): Record<string, string> {
  const headers: Record<string, string> = {};
  if (backend.config.apiKey !== undefined) headers.authorization = `Bearer ${backend.config.apiKey}`;
  return headers;
}

export function bearerEndpoint(route: UpstreamRoute, backend: BackendInfo): UpstreamEndpoint {
  const base = backend.baseUrl.endsWith('/') ? backend.baseUrl : `${backend.baseUrl}/`;
  return { url: `${base}${route}`, headers: keyHeaders(backend) };
}

/** `GET {base}/v1/models`, with the backend's Bearer key when it has one. */
export function bearerModelsEndpoint(backend: BackendInfo): UpstreamEndpoint {
  return { url: new URL('models', backend.baseUrl).toString(), headers: keyHeaders(backend) };
}

export function bearerCall(draft: RequestDraft, backend: BackendInfo): UpstreamCall {
  const { url, headers } = bearerEndpoint('chat/completions', backend);
  // Written out, not `{ ...endpoint, body, changes }`: on Node 20 new keys after a spread take
  // V8's slow path (docs/architecture.md, "Rules for code here").
  return { url, headers, body: draft.body, changes: [...draft.changes] };
}
