/**
 * What svir sent a fake backend, read back for assertions: the messages (with their tool calls
 * and tool results) and the tools of one chat request.
 */
import { z } from 'zod';
import type { RecordedRequest } from '../../fakes/scripted-upstream.js';
import { messageText } from '../../fakes/fake-model.js';

const chatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      content: z.unknown().optional(),
      tool_call_id: z.string().optional(),
      tool_calls: z
        .array(z.looseObject({ id: z.string(), type: z.string().optional(), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
        .optional(),
    }),
  ),
  tools: z.array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() })).optional(),
});

export interface ChatRequestSeen {
  model: string | undefined;
  /** Each message with its content flattened to text. */
  messages: { role: string; text: string; toolCallId?: string; toolCalls?: { id: string; name: string; arguments: string }[] }[];
  /** The names of the function tools offered; other tool types are listed as `<type>`. */
  tools: string[];
}

export function readChatRequest(request: RecordedRequest | undefined): ChatRequestSeen {
  if (request === undefined) throw new Error('the fake received no such chat request');
  const body = chatRequestSchema.parse(request.body);
  return {
    model: body.model,
    messages: body.messages.map((message) => ({
      role: message.role,
      text: messageText(message.content),
      ...(message.tool_call_id === undefined ? {} : { toolCallId: message.tool_call_id }),
      ...(message.tool_calls === undefined
        ? {}
        : { toolCalls: message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })) }),
    })),
    tools: (body.tools ?? []).map((tool) => tool.function?.name ?? `<${tool.type}>`),
  };
}
