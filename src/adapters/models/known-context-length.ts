/**
 * The context a backend gives a request for a model, in tokens, as far as svir knows it: the
 * config's `contextLength` first (the user knows best, and Ollama tells nobody its `num_ctx`),
 * then what the server's model list said for that model (vLLM's `max_model_len`), then what the
 * server reports for every request (llama.cpp's `/props`). Undefined: nobody said.
 */
import type { BackendInfo } from '../adapter.js';

export function knownContextLength(backend: BackendInfo, upstreamModel: string): number | undefined {
  return backend.config.contextLength ?? backend.listedContexts?.get(upstreamModel) ?? backend.serverContext;
}
