/**
 * The Responses input items svir reads (`input` as a list, and what the store keeps): messages,
 * function calls and their outputs, reasoning, and references to stored items. zod reads only
 * the fields the translation acts on; the rest of an item passes untouched.
 */
import { z } from 'zod';

export const inputTextSchema = z.looseObject({ type: z.literal('input_text'), text: z.string() });
export const outputTextSchema = z.looseObject({ type: z.literal('output_text'), text: z.string() });
export const refusalSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
export const inputImageSchema = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().min(1).nullish(),
  file_id: z.string().nullish(),
  detail: z.enum(['low', 'high', 'auto', 'original']).nullish(),
});
export const inputFileSchema = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().nullish(),
  filename: z.string().nullish(),
  file_id: z.string().nullish(),
  file_url: z.string().nullish(),
});

export const contentPartSchema = z.discriminatedUnion('type', [
  inputTextSchema,
  outputTextSchema,
  refusalSchema,
  inputImageSchema,
  inputFileSchema,
]);

export const messageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  id: z.string().nullish(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPartSchema)]),
});

export const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().nullish(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  /** Codex and the OpenAI API return a call of a namespaced tool with its namespace apart. */
  namespace: z.string().min(1).nullish(),
  arguments: z.string(),
});

export const functionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  id: z.string().nullish(),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(contentPartSchema)]),
});

export const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ type: z.literal('summary_text'), text: z.string() })).nullish(),
  content: z.array(z.looseObject({ type: z.enum(['reasoning_text', 'text']), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

/** `{"type": "item_reference", "id": ...}`; the type may be left out (OpenAI's schema allows it). */
export const itemReferenceSchema = z.looseObject({
  type: z.literal('item_reference').nullish(),
  id: z.string().min(1),
});

export type ContentPart = z.infer<typeof contentPartSchema>;
export type MessageItem = z.infer<typeof messageItemSchema>;
export type FunctionCallItem = z.infer<typeof functionCallItemSchema>;
export type FunctionCallOutputItem = z.infer<typeof functionCallOutputItemSchema>;
export type ReasoningItem = z.infer<typeof reasoningItemSchema>;
export type ItemReference = z.infer<typeof itemReferenceSchema>;

/** An input item once references are resolved: what the translation into chat messages reads. */
export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem;
