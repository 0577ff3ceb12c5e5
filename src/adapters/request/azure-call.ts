/**
 * Azure OpenAI: `{resource}/openai/v1/chat/completions` with the `api-key` header and no
 * `Authorization`, or, with `apiVersion` configured, the deployments route
 * `{resource}/openai/deployments/{deployment}/chat/completions?api-version=...`. The deployment
 * name is the model. The resource URL is taken as written, with or without `/openai`, `/v1`
 * or `/openai/v1` and a trailing slash.
 */
import type { BackendInfo, UpstreamCall } from '../adapter.js';
import type { RequestDraft } from './request-draft.js';

export function azureResourceUrl(url: string): string {
  let resource = url.replace(/\/+$/, '');
  for (const suffix of ['/v1', '/openai']) {
    if (resource.toLowerCase().endsWith(suffix)) resource = resource.slice(0, -suffix.length).replace(/\/+$/, '');
  }
  return resource;
}

export function azureCall(draft: RequestDraft, backend: BackendInfo): UpstreamCall {
  const resource = azureResourceUrl(backend.config.url);
  const apiVersion = backend.config.apiVersion;
  const url =
    apiVersion === undefined
      ? `${resource}/openai/v1/chat/completions`
      : `${resource}/openai/deployments/${encodeURIComponent(draft.body.model)}/chat/completions?api-version=${encodeURIComponent(apiVersion)}`;
  const headers: Record<string, string> = {};
  if (backend.config.apiKey !== undefined) headers['api-key'] = backend.config.apiKey;
  return { url, headers, body: draft.body, changes: [...draft.changes] };
}
