/**
 * What the adapter's event reader and the normalizer must know about the request that opened
 * the stream. Tool names come from what was actually offered upstream (an adapter may narrow
 * the tools to the one a named `tool_choice` asks for).
 */
import { z } from 'zod';
import type { BackendInfo, StreamContext, UpstreamCall } from '../adapters/adapter.js';
import type { ChatRequest } from '../chat-request.js';
import type { Config } from '../config/schema.js';

const offeredTools = z.array(z.looseObject({ function: z.looseObject({ name: z.string().min(1) }) }));

export function buildStreamContext(
  request: ChatRequest,
  call: UpstreamCall,
  backend: BackendInfo,
  config: Config,
  secrets: readonly string[],
): StreamContext {
  const tools = offeredTools.safeParse(call.body.tools);
  const format = request.response_format?.type;
  return {
    model: request.model,
    backend: backend.config.name,
    toolNames: tools.success ? tools.data.map((tool) => tool.function.name) : [],
    // Usage is always read (svir logs it); the route forwards it only when the client asked.
    includeUsage: true,
    logprobs: request.logprobs === true,
    structuredOutput: format === 'json_schema' || format === 'json_object',
    reasoningTags: backend.config.reasoningTags,
    reasoningField: config.reasoning.field,
    // A server's error inside the stream may echo the key it was sent, as its HTTP errors may.
    secrets,
  };
}
