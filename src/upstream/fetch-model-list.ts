/**
 * `GET /v1/models` of one backend → the ids it serves (docs/wire-protocol.md#model-listing), and
 * whether the list says the backend takes images (llama.cpp's `input_modalities`: without its
 * projector an image is a 500 that svir refuses first). Bounded in time and size; any failure is a
 * SvirError, so the caller can mark the backend down and go on.
 */
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import type { BackendInfo } from '../adapters/adapter.js';
import { readListedVision } from '../adapters/models/read-listed-vision.js';
import { SvirError } from '../errors.js';
import { dispatchRequest, type UpstreamResponse } from './dispatch-request.js';
import { mapTransportError } from './map-transport-error.js';
import { modelsRequest } from './models-request.js';
import { readBoundedBody } from './read-bounded-body.js';

export interface DiscoveredModel {
  id: string;
  /** Unix seconds, when the server said. */
  created?: number;
  /** The context a request gets, in tokens, when the list says (vLLM's `max_model_len`, llama.cpp's `meta.n_ctx`). */
  contextLength?: number;
}

export interface ModelListing {
  models: DiscoveredModel[];
  /** What the list says about images; undefined when it says nothing (most servers). */
  vision: boolean | undefined;
}

export interface FetchModelListOptions {
  /** Whole exchange, connect to last byte. */
  timeoutMs: number;
  maxBytes?: number;
}

/** Enough for a Hugging Face cache listing hundreds of models (mlx-lm lists them all). */
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

const modelListSchema = z.looseObject({
  // Ollama with no model pulled answers `"data": null` (docs/ollama.md): an empty list.
  data: z
    .array(
      z.looseObject({
        id: z.string().min(1),
        created: z.number().int().nonnegative().optional().catch(undefined),
        max_model_len: z.number().int().positive().optional().catch(undefined),
        meta: z.looseObject({ n_ctx: z.number().int().positive().optional().catch(undefined) }).optional().catch(undefined),
      }),
    )
    .nullable()
    .transform((data) => data ?? []),
});

export async function fetchModelList(
  dispatcher: Dispatcher,
  backend: BackendInfo,
  options: FetchModelListOptions,
): Promise<ModelListing> {
  const { url, headers } = modelsRequest(backend);
  const name = backend.config.name;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: UpstreamResponse;
  try {
    response = await dispatchRequest(dispatcher, {
      url,
      method: 'GET',
      headers: { ...headers, accept: 'application/json', 'user-agent': 'svir' },
      signal,
    });
  } catch (err) {
    if (signal.aborted) {
      throw new SvirError('upstream_timeout', { source: 'upstream', backend: name, message: `backend "${name}" did not list its models in time.` });
    }
    throw mapTransportError(err, name, 'request');
  }
  if (response.statusCode < 200 || response.statusCode > 299) {
    // Only the status is used: an error body (which a server may stall on 401/403) is not read.
    response.body.discard();
    const status = response.statusCode;
    const code = status === 401 || status === 403 ? 'upstream_auth_failed' : status === 429 ? 'rate_limit_exceeded' : 'upstream_error';
    // Kept for a request that can only be answered with this failure (no model list known).
    const retryAfter = response.header('retry-after');
    throw new SvirError(code, {
      source: 'upstream',
      backend: name,
      ...(typeof retryAfter === 'string' && status !== 401 && status !== 403 ? { retryAfter } : {}),
      message: `backend "${name}" answered GET /v1/models with HTTP ${status}.`,
    });
  }
  const text = await readBoundedBody(response.body, {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    timeoutMs: options.timeoutMs,
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = modelListSchema.safeParse(json);
  if (!parsed.success) {
    throw new SvirError('upstream_error', {
      source: 'upstream',
      backend: name,
      message: `backend "${name}" answered GET /v1/models with something that is not a model list.`,
    });
  }
  const seen = new Set<string>();
  const models: DiscoveredModel[] = [];
  for (const entry of parsed.data.data) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    const model: DiscoveredModel = { id: entry.id };
    if (entry.created !== undefined) model.created = entry.created;
    // vLLM's `max_model_len`; llama.cpp's `meta.n_ctx` (docs/wire-protocol.md#model-listing).
    const contextLength = entry.max_model_len ?? entry.meta?.n_ctx;
    if (contextLength !== undefined) model.contextLength = contextLength;
    models.push(model);
  }
  return { models, vision: readListedVision(json) };
}
