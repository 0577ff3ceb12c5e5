/**
 * The client's Chat Completions request: zod reads the fields svir acts on and lets every other
 * field through untouched to the upstream.
 */
import { z } from 'zod';

const functionTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1).max(256),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
]);

export const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 ASCII letters, digits, "_" or "-"'),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const message = z.looseObject({
  role: z.string().min(1),
  content: z.unknown().optional(),
});

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1).max(512),
  messages: z.array(message).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
  n: z.literal(1, { message: 'only n = 1 is supported' }).nullable().optional(),
  tools: z.array(functionTool).nullable().optional(),
  tool_choice: toolChoiceSchema.nullable().optional(),
  response_format: responseFormatSchema.nullable().optional(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ToolChoice = z.infer<typeof toolChoiceSchema>;
export type ResponseFormat = z.infer<typeof responseFormatSchema>;
export type ChatMessage = ChatRequest['messages'][number];
