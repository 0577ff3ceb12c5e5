/**
 * Azure OpenAI: `{resource}/openai/v1/chat/completions` (or `completions`, `embeddings`) with
 * the `api-key` header and no `Authorization`, or, with `apiVersion` configured, the
 * deployments route `{resource}/openai/deployments/{deployment}/chat/completions?api-version=...`. The deployment
 * name is the model. The resource URL is taken as written, with or without `/openai`, `/v1`
 * or `/openai/v1` and a trailing slash.
 */
import type { BackendInfo, UpstreamCall, UpstreamEndpoint, UpstreamRoute } from '../adapter.js';
import type { RequestDraft } from './request-draft.js';

export function azureResourceUrl(url: string): string {
  let resource = url.replace(/\/+$/, '');
  for (const suffix of ['/v1', '/openai']) {
    if (resource.toLowerCase().endsWith(suffix)) resource = resource.slice(0, -suffix.length).replace(/\/+$/, '');
  }
  return resource;
}

/** The backend's key as `api-key` (Azure's header, never `Authorization`), when it has one: a new object for each call. */
function keyHeaders(backend: BackendInfo): Record<string, string> {
  const headers: Record<string, string> = {};
  if (backend.config.apiKey !== undefined) headers['api-key'] = backend.config.apiKey;
  return headers;
}

export function azureEndpoint(route: UpstreamRoute, backend: BackendInfo, deployment: string): UpstreamEndpoint {
  const resource = azureResourceUrl(backend.config.url);
  const apiVersion = backend.config.apiVersion;
  const url =
    apiVersion === undefined
      ? `${resource}/openai/v1/${route}`
      : `${resource}/openai/deployments/${encodeURIComponent(deployment)}/${route}?api-version=${encodeURIComponent(apiVersion)}`;
  return { url, headers: keyHeaders(backend) };
}

/**
 * The resource's model list, `{resource}/openai/v1/models` with `api-key`, whichever chat route
 * the config picked (the list is not per deployment).
 */
export function azureModelsEndpoint(backend: BackendInfo): UpstreamEndpoint {
  return { url: `${azureResourceUrl(backend.config.url)}/openai/v1/models`, headers: keyHeaders(backend) };
}

export function azureCall(draft: RequestDraft, backend: BackendInfo): UpstreamCall {
  const { url, headers } = azureEndpoint('chat/completions', backend, draft.body.model);
  // Not `{ ...endpoint, body, changes }`: new keys after a spread are V8's slow path on Node 20.
  return { url, headers, body: draft.body, changes: [...draft.changes] };
}
