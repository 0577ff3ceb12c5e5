/**
 * Where a backend lists its models and with which credentials: its adapter says (an ordinary
 * server `GET {base}/v1/models` with its Bearer key; Azure its resource's list with `api-key`).
 * Only the backend's configured key is ever sent, never a client's.
 */
import type { BackendInfo } from '../adapters/adapter.js';
import { getAdapter } from '../adapters/index.js';

export interface ModelsRequest {
  url: string;
  headers: Record<string, string>;
}

export function modelsRequest(backend: BackendInfo): ModelsRequest {
  return getAdapter(backend.config.type).modelsEndpoint(backend);
}
