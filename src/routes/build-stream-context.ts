/**
 * What the adapter's event reader and the normalizer must know about the request that opened
 * the stream. Tool names come from what was actually offered upstream (an adapter may narrow
 * the tools to the one a named `tool_choice` asks for).
 */
import { z } from 'zod';
import type { Adapter, BackendInfo } from '../adapters/adapter.js';
import { knownContextLength } from '../adapters/models/known-context-length.js';
import type { StreamContext } from '../normalize/stream-context.js';
import { createStreamMemo } from '../normalize/stream-memo.js';
import { reasoningTagsOf } from '../adapters/reasoning-tags-of.js';
import { turnsReasoningOff } from '../adapters/request/turns-reasoning-off.js';
import type { ChatRequest } from '../requests/chat-request.js';
import type { Config } from '../config/schema.js';

// Only the names are read: a stripping schema takes them without copying each tool whole.
const offeredTools = z.array(z.object({ function: z.object({ name: z.string().min(1) }) }));

/**
 * `sent` is the body the server took: after a retry, not the adapter's first one.
 * `upstreamModel` is the model the backend runs it with, whose context an overflow names.
 */
export function buildStreamContext(
  request: ChatRequest,
  sent: Record<string, unknown>,
  backend: BackendInfo,
  upstreamModel: string,
  adapter: Adapter,
  config: Config,
  secrets: readonly string[],
): StreamContext {
  const tools = offeredTools.safeParse(sent.tools);
  const format = request.response_format?.type;
  const contextLength = knownContextLength(backend, upstreamModel);
  return {
    model: request.model,
    backend: backend.config.name,
    toolNames: tools.success ? tools.data.map((tool) => tool.function.name) : [],
    // Usage is always read (svir logs it); the route forwards it only when the client asked.
    includeUsage: true,
    logprobs: request.logprobs === true,
    structuredOutput: format === 'json_schema' || format === 'json_object',
    reasoningTags: reasoningTagsOf(backend.config, adapter),
    ...(adapter.reasoningMarkers === undefined ? {} : { reasoningMarkers: adapter.reasoningMarkers }),
    reasoningOff: turnsReasoningOff(sent, backend.config.effortTemplateKey),
    reasoningField: config.reasoning.field,
    singleToolCall: request['parallel_tool_calls'] === false,
    // A server's error inside the stream may echo the key it was sent, as its HTTP errors may.
    secrets,
    memo: createStreamMemo(),
    ...(contextLength === undefined ? {} : { contextLength }),
  };
}
