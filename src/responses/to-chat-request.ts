/**
 * A Responses request (its input already resolved: history, references) → a clean chat
 * request, the one the chat route would have received, plus the notes for `x-svir-changes`.
 * What cannot be honoured is refused here (400) or noted; nothing is dropped silently.
 * Pure: the route resolves `previous_response_id` and `item_reference` from the store first.
 */
import type { ChatRequest, ResponseFormat } from '../requests/chat-request.js';
import { SvirError } from '../errors.js';
import type { InputItem } from './input-item.js';
import type { ResponsesRequest } from './responses-request.js';
import { toChatMessages } from './to-chat-messages.js';
import { toChatToolChoice } from './to-chat-tool-choice.js';
import { toChatTools, type ToolOrigin } from './to-chat-tools.js';

export interface TranslatedRequest {
  chat: ChatRequest;
  /** Phrases for `x-svir-changes`: what svir dropped or sent otherwise. */
  notes: string[];
  /** Chat tool name → the client's name and namespace, for flattened namespace tools. */
  origins: Map<string, ToolOrigin>;
}

/**
 * Fields of the Responses body the translation reads (every field of the Responses API): each is
 * sent as its chat counterpart, kept by svir, noted or refused. Any other field is passed on as
 * the chat route passes it (a vendor's `top_k`, `seed`, `stop`), except the chat fields below.
 */
export const READ_FIELDS: ReadonlySet<string> = new Set([
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'text', 'reasoning',
  'max_output_tokens', 'temperature', 'top_p', 'stream', 'stream_options', 'metadata', 'user',
  'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention', 'include', 'store',
  'previous_response_id', 'truncation', 'client_metadata', 'service_tier', 'background',
  'conversation', 'prompt', 'top_logprobs', 'context_management', 'max_tool_calls',
]);

/**
 * Chat Completions fields that the Responses API names otherwise (docs/responses.md, "Fields"):
 * a client sending one here meant the Responses field, and svir does not guess which of the two
 * wins; a 400 names both. (OpenAI answers them as unknown parameters.)
 */
export const CHAT_NAMES: ReadonlyMap<string, string> = new Map([
  ['messages', 'input'],
  ['max_tokens', 'max_output_tokens'],
  ['max_completion_tokens', 'max_output_tokens'],
  ['response_format', 'text.format'],
  ['reasoning_effort', 'reasoning.effort'],
  ['verbosity', 'text.verbosity'],
  ['functions', 'tools'],
  ['function_call', 'tool_choice'],
]);

/**
 * Chat fields with no Responses counterpart that svir reads: `n` (one output only: 1 changes
 * nothing and is not sent) and `logprobs` (never returned on this route, as `top_logprobs`).
 */
function readChatOnlyField(field: string, value: unknown): void {
  if (value === null || value === undefined) return;
  if (field === 'n' && value !== 1) {
    refuseField('n', 'a response has one output (only n = 1, or no n).');
  }
  if (field === 'logprobs' && value !== false) {
    refuseField('logprobs', 'svir does not return logprobs on /v1/responses; use /v1/chat/completions.');
  }
}

/** `include` values that ask for output of built-in tools svir never runs, or of data it does not have. */
function includeNote(value: string): string {
  if (value === 'reasoning.encrypted_content') return 'include reasoning.encrypted_content not honoured (svir has no encrypted reasoning)';
  return `include ${value} not honoured`;
}

function refuse(param: string, message: string): SvirError {
  return new SvirError('invalid_request', { param, message });
}

export function toChatRequest(request: ResponsesRequest, items: readonly InputItem[]): TranslatedRequest {
  const notes: string[] = [];
  if (request.background === true) refuseField('background', 'svir answers in the foreground only (no background responses).');
  if (request.conversation !== undefined && request.conversation !== null) {
    refuseField('conversation', 'svir keeps no conversations; use previous_response_id or send the history.');
  }
  if (request.prompt !== undefined && request.prompt !== null) refuseField('prompt', 'svir has no stored prompt templates.');
  if (typeof request.top_logprobs === 'number' && request.top_logprobs > 0) {
    refuseField('top_logprobs', 'svir does not return logprobs on /v1/responses; use /v1/chat/completions.');
  }

  const { messages, notes: messageNotes } = toChatMessages(items);
  if (typeof request.instructions === 'string' && request.instructions.length > 0) {
    messages.unshift({ role: 'system', content: request.instructions });
    const second = messages[1];
    // Instructions and a leading system or developer message become one system message.
    if (second !== undefined && second.role === 'system' && typeof second.content === 'string') {
      messages.splice(0, 2, { role: 'system', content: `${request.instructions}\n\n${second.content}` });
    }
  }
  if (messages.length === 0) throw refuse('input', 'Invalid request: input is empty: there is nothing to answer.');
  notes.push(...messageNotes);

  const translated = toChatTools(request.tools ?? []);
  if (translated.dropped.length > 0) notes.push(`tools not sent (a chat backend cannot run them): ${translated.dropped.join(', ')}`);
  const choice = toChatToolChoice(request.tool_choice, translated.tools, translated.origins, translated.dropped);
  notes.push(...choice.notes);

  // The fields passed on as they came (the chat route passes them alike), in the client's order.
  const passed: [string, unknown][] = [];
  for (const [field, value] of Object.entries(request)) {
    if (READ_FIELDS.has(field)) continue;
    const responsesName = CHAT_NAMES.get(field);
    if (responsesName !== undefined) {
      throw refuse(field, `Invalid request: ${field} is a Chat Completions field; on /v1/responses it is ${responsesName}.`);
    }
    if (field === 'n' || field === 'logprobs') readChatOnlyField(field, value);
    else passed.push([field, value]);
  }
  const format = request.text?.format;
  let responseFormat: ResponseFormat | undefined;
  if (format?.type === 'json_object') responseFormat = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    // Keys in the chat schema's order (name, description, schema, strict): the bytes sent upstream are those a parse would give.
    const jsonSchema: Extract<ResponseFormat, { type: 'json_schema' }>['json_schema'] = { name: format.name };
    if (typeof format.description === 'string') jsonSchema.description = format.description;
    jsonSchema.schema = format.schema;
    if (typeof format.strict === 'boolean') jsonSchema.strict = format.strict;
    responseFormat = { type: 'json_schema', json_schema: jsonSchema };
  }
  const effort = request.reasoning?.effort;

  /*
   * The chat request is built in the order chatRequestSchema's parse gives (its own fields in
   * its order, then the others in the order they were added), from values already read: parsing
   * svir's own object again cost more than the rest of the translation. No field the chat
   * schema reads is passed from the client: each is a Responses field read above, a chat name
   * refused, or `n`/`logprobs` read (a test holds the chat schema's keys to that).
   */
  const chat: ChatRequest = { model: request.model, messages, stream: request.stream === true };
  if (choice.tools.length > 0) chat.tools = choice.tools;
  if (choice.toolChoice !== undefined) chat.tool_choice = choice.toolChoice;
  if (responseFormat !== undefined) chat.response_format = responseFormat;
  if (typeof effort === 'string') chat.reasoning_effort = effort;
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  // What svir sets wins over a field of the same name the client passed.
  for (const [field, value] of passed) if (!Object.hasOwn(chat, field)) chat[field] = value;
  if (choice.tools.length > 0 && typeof request.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = request.parallel_tool_calls;
  if (typeof request.text?.verbosity === 'string') chat.verbosity = request.text.verbosity;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.user === 'string') chat.user = request.user;

  if (typeof request.safety_identifier === 'string') notes.push('safety_identifier not sent');
  if (typeof request.prompt_cache_key === 'string') notes.push('prompt_cache_key not sent (the backend caches prompt prefixes itself)');
  if (typeof request.prompt_cache_retention === 'string') notes.push('prompt_cache_retention not honoured');
  if (request.client_metadata !== null && request.client_metadata !== undefined) notes.push('client_metadata not sent');
  if (typeof request.service_tier === 'string' && request.service_tier !== 'auto' && request.service_tier !== 'default') {
    notes.push(`service_tier ${request.service_tier} not honoured`);
  }
  if (request.stream_options?.include_obfuscation === true) notes.push('stream_options include_obfuscation not honoured');
  if (request.context_management !== undefined && request.context_management !== null) notes.push('context_management not honoured');
  if (typeof request.max_tool_calls === 'number') notes.push('max_tool_calls not sent (it bounds built-in tool calls, which svir does not run)');
  if (request.truncation === 'auto') {
    notes.push('truncation auto not honoured (a prompt over the context is refused with context_length_exceeded)');
  }
  for (const value of request.include ?? []) notes.push(includeNote(value));

  return { chat, notes, origins: translated.origins };
}

function refuseField(param: string, why: string): never {
  throw refuse(param, `Invalid request: ${param} is not supported: ${why}`);
}
