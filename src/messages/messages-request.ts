/**
 * The client's `POST /v1/messages` body (Anthropic's Messages API, docs/messages.md): zod reads
 * the fields svir acts on. Blocks, tools and messages are read one by one later
 * (to-chat-messages.ts, to-chat-tools.ts), so that a bad one is named by its place. A field not
 * named here is dropped with a note, never forwarded: a local server may refuse what it does
 * not know, and Anthropic's fields mean nothing to it.
 */
import { z } from 'zod';

const textBlocks = z.array(z.looseObject({ type: z.string(), text: z.string().optional() }));

export const messagesToolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('none') }),
]);

export const thinkingSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().nonnegative().nullish(), display: z.unknown().optional() }),
  z.looseObject({ type: z.literal('adaptive'), display: z.unknown().optional() }),
  z.looseObject({ type: z.literal('disabled') }),
]);

/** Anthropic's efforts; `max` is past `high`, as `xhigh` is in the chat dialect. */
export const messagesEffortSchema = z.enum(['low', 'medium', 'high', 'xhigh', 'max']);

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1).max(512),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.unknown()),
  system: z.union([z.string(), textBlocks]).nullish(),
  stream: z.boolean().nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.number().int().nonnegative().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: messagesToolChoiceSchema.nullish(),
  thinking: thinkingSchema.nullish(),
  output_config: z
    .looseObject({
      effort: messagesEffortSchema.nullish(),
      format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
    })
    .nullish(),
  metadata: z.unknown().optional(),
  context_management: z.unknown().optional(),
  service_tier: z.string().nullish(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type MessagesToolChoice = z.infer<typeof messagesToolChoiceSchema>;

/** `count_tokens` takes the same fields but `max_tokens` (and never streams). */
export const countTokensRequestSchema = messagesRequestSchema.extend({ max_tokens: z.number().int().positive().nullish() });
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
