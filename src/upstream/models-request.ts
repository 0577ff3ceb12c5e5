/**
 * Where a backend lists its models and with which credentials: `GET {base}/v1/models` with the
 * backend's Bearer key, or for Azure `{resource}/openai/v1/models` with `api-key`. Only the
 * backend's configured key is ever sent, never a client's.
 */
import type { BackendInfo } from '../adapters/adapter.js';
import { azureResourceUrl } from '../adapters/request/azure-call.js';

export interface ModelsRequest {
  url: string;
  headers: Record<string, string>;
}

export function modelsRequest(backend: BackendInfo): ModelsRequest {
  const { apiKey, type } = backend.config;
  if (type === 'azure') {
    return {
      url: `${azureResourceUrl(backend.config.url)}/openai/v1/models`,
      headers: apiKey === undefined ? {} : { 'api-key': apiKey },
    };
  }
  return {
    url: new URL('models', backend.baseUrl).toString(),
    headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
  };
}
