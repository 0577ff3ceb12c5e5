/**
 * The client's `POST /v1/responses` body: zod reads the fields svir acts on. Input items and
 * tools are read one by one later (read-input-items.ts, to-chat-tools.ts), so that a bad one is
 * named by its place. Fields not named here are passed to the chat request as the chat route
 * passes them (a vendor's `top_k` reaches the backend).
 */
import { z } from 'zod';

const effort = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

export const textFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 ASCII letters, digits, "_" or "-"'),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
  z.looseObject({
    type: z.literal('allowed_tools'),
    mode: z.enum(['auto', 'required']),
    tools: z.array(z.looseObject({ type: z.string().min(1), name: z.string().nullish() })),
  }),
  // Any other `type` names a built-in tool (web_search_preview, file_search, mcp, custom, ...).
  z.looseObject({ type: z.string().min(1), name: z.string().nullish() }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1).max(512),
  input: z.union([z.string(), z.array(z.unknown())]).nullish(),
  instructions: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: responsesToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z
    .looseObject({ format: textFormatSchema.nullish(), verbosity: z.enum(['low', 'medium', 'high']).nullish() })
    .nullish(),
  reasoning: z
    .looseObject({
      effort: effort.nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
      generate_summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_obfuscation: z.boolean().nullish() }).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  prompt_cache_retention: z.string().nullish(),
  include: z.array(z.string()).nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  /** Codex CLI sends its ids here (an object of strings). */
  client_metadata: z.record(z.string(), z.unknown()).nullish(),
  service_tier: z.string().nullish(),
  background: z.boolean().nullish(),
  conversation: z.unknown().optional(),
  prompt: z.unknown().optional(),
  top_logprobs: z.number().int().min(0).nullish(),
  /** Bounds built-in tool calls (none run here): noted, not sent. */
  max_tool_calls: z.number().int().min(0).nullish(),
  context_management: z.unknown().optional(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
export type ResponsesToolChoice = z.infer<typeof responsesToolChoiceSchema>;
export type TextFormat = z.infer<typeof textFormatSchema>;
