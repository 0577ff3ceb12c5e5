/**
 * One small JSON exchange with a backend outside its OpenAI routes (llama.cpp's `/props`,
 * `/tokenize`, `/apply-template`; vLLM's `/tokenize`): the path is relative to the server's
 * root (the base URL without its `/v1/`), with the backend's own credentials (the client's key
 * never). Bounded in time and size. Any failure (unreachable, non-2xx, not JSON) is a SvirError
 * of source `upstream`: the callers fall back to what they know without the server.
 */
import type { Dispatcher } from 'undici';
import type { BackendInfo } from '../adapters/adapter.js';
import { SvirError } from '../errors.js';
import { dispatchRequest, type UpstreamResponse } from './dispatch-request.js';
import { mapTransportError } from './map-transport-error.js';
import { modelsRequest } from './models-request.js';
import { readBoundedBody } from './read-bounded-body.js';

export interface ServerJsonRequest {
  method: 'GET' | 'POST';
  /** Relative to the server's root: `props`, `tokenize`. */
  path: string;
  body?: unknown;
  timeoutMs: number;
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** The server's root: the base URL's `/v1/` taken off (a prefix before it stays). */
export function serverRootUrl(backend: BackendInfo, path: string): string {
  return new URL(`../${path}`, backend.baseUrl).toString();
}

export async function requestServerJson(dispatcher: Dispatcher, backend: BackendInfo, request: ServerJsonRequest): Promise<unknown> {
  const name = backend.config.name;
  // The credentials the model list is asked with (modelsRequest): Bearer, the backend's key.
  const { headers } = modelsRequest(backend);
  const signal = AbortSignal.timeout(request.timeoutMs);
  const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body), 'utf8');
  const sent: Record<string, string> = { ...headers, accept: 'application/json', 'user-agent': 'svir' };
  if (body !== undefined) {
    sent['content-type'] = 'application/json';
    sent['content-length'] = String(body.byteLength);
  }
  let response: UpstreamResponse;
  try {
    response = await dispatchRequest(dispatcher, {
      url: serverRootUrl(backend, request.path),
      method: request.method,
      headers: sent,
      ...(body === undefined ? {} : { body }),
      signal,
    });
  } catch (err) {
    if (signal.aborted) {
      throw new SvirError('upstream_timeout', { source: 'upstream', backend: name, message: `backend "${name}" did not answer /${request.path} in time.` });
    }
    throw mapTransportError(err, name, 'request');
  }
  if (response.statusCode < 200 || response.statusCode > 299) {
    response.body.discard();
    throw new SvirError('upstream_error', {
      source: 'upstream',
      backend: name,
      message: `backend "${name}" answered ${request.method} /${request.path} with HTTP ${response.statusCode}.`,
    });
  }
  const text = await readBoundedBody(response.body, { maxBytes: request.maxBytes ?? DEFAULT_MAX_BYTES, timeoutMs: request.timeoutMs });
  try {
    const json: unknown = JSON.parse(text);
    return json;
  } catch {
    throw new SvirError('upstream_error', { source: 'upstream', backend: name, message: `backend "${name}" answered /${request.path} with something that is not JSON.` });
  }
}
