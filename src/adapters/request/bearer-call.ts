/**
 * The ordinary call: `{base}/v1/chat/completions` with `Authorization: Bearer <apiKey>` when the
 * backend has a key (R§1). The client's own key never gets here.
 */
import type { BackendInfo, UpstreamCall } from '../adapter.js';
import type { RequestDraft } from './request-draft.js';

export function bearerCall(draft: RequestDraft, backend: BackendInfo): UpstreamCall {
  const base = backend.baseUrl.endsWith('/') ? backend.baseUrl : `${backend.baseUrl}/`;
  const headers: Record<string, string> = {};
  if (backend.config.apiKey !== undefined) headers.authorization = `Bearer ${backend.config.apiKey}`;
  return { url: `${base}chat/completions`, headers, body: draft.body, changes: [...draft.changes] };
}
