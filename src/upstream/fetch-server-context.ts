/**
 * The context one request gets on a backend whose adapter names a route that reports it
 * (`contextProbe`: llama.cpp's `/props`), asked beside its model list. Undefined when the type
 * has no such route or the server did not answer it: nothing is learned, nothing fails.
 */
import type { Dispatcher } from 'undici';
import type { Adapter, BackendInfo } from '../adapters/adapter.js';
import { requestServerJson } from './request-server-json.js';

export async function fetchServerContext(
  dispatcher: Dispatcher,
  backend: BackendInfo,
  adapter: Adapter,
  options: { timeoutMs: number },
): Promise<number | undefined> {
  const probe = adapter.contextProbe;
  if (probe === undefined) return undefined;
  try {
    return probe.read(await requestServerJson(dispatcher, backend, { method: 'GET', path: probe.path, timeoutMs: options.timeoutMs, maxBytes: 1024 * 1024 }));
  } catch {
    return undefined;
  }
}
