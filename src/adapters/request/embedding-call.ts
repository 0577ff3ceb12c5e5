/**
 * An Embeddings request → the call for one backend: its `embeddings` route and auth (the
 * adapter's `endpoint`) and the server's model id; everything else, `encoding_format` included,
 * passes as sent (the answer is fitted to what the client asked, fit-embeddings.ts). A server
 * with no `/v1/embeddings` is the client's 400 before anything is sent.
 */
import type { EmbeddingRequest } from '../../requests/embedding-request.js';
import { SvirError } from '../../errors.js';
import type { Adapter, BackendInfo, ToUpstreamResult } from '../adapter.js';

export function embeddingCall(adapter: Adapter, request: EmbeddingRequest, backend: BackendInfo, upstreamModel: string): ToUpstreamResult {
  if (!adapter.legacy.embeddings) {
    const name = backend.config.name;
    return {
      ok: false,
      error: new SvirError('invalid_request', {
        param: 'model',
        message: `Backend "${name}" (${backend.config.type}) has no /v1/embeddings.`,
      }),
    };
  }
  const body: Record<string, unknown> = { ...request, model: upstreamModel };
  const { url, headers } = adapter.endpoint('embeddings', backend, upstreamModel);
  // Not `{ ...endpoint, body, changes }`: new keys after a spread are V8's slow path on Node 20.
  return { ok: true, call: { url, headers, body, changes: [] } };
}
