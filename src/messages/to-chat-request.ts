/**
 * A Messages request → the clean chat request the chat route would have received, plus the
 * notes for `x-svir-changes` (docs/messages.md). Pure. Nothing Anthropic-only is forwarded:
 * what a chat server cannot honour is dropped with a note, what svir cannot send at all is
 * refused (400). `max_tokens` goes as it came; the route lowers it per backend (fit-max-tokens.ts).
 */
import type { ChatRequest, ResponseFormat } from '../requests/chat-request.js';
import { SvirError } from '../errors.js';
import type { MessagesRequest } from './messages-request.js';
import { toChatEffort } from './to-chat-effort.js';
import { toChatMessages } from './to-chat-messages.js';
import { toChatTools } from './to-chat-tools.js';

export interface TranslatedMessages {
  chat: ChatRequest;
  /** Phrases for `x-svir-changes`: what svir dropped or sent otherwise. */
  notes: string[];
}

/** The fields the translation reads; any other is dropped with a note. */
const READ_FIELDS: ReadonlySet<string> = new Set([
  'model', 'max_tokens', 'messages', 'system', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k',
  'tools', 'tool_choice', 'thinking', 'output_config', 'metadata', 'context_management', 'service_tier',
]);

/**
 * `betas`: the `anthropic-beta` header's values, said once in the notes (each names an
 * Anthropic feature a chat server has not; svir honours what it translates whatever they say).
 */
export function toChatRequest(request: MessagesRequest, betas: readonly string[] = []): TranslatedMessages {
  const { messages, notes: messageNotes } = toChatMessages(request.system, request.messages);
  if (!messages.some((message) => message.role !== 'system')) {
    throw new SvirError('invalid_request', { param: 'messages', message: 'messages: at least one user or assistant message is required.' });
  }
  const notes: string[] = [...messageNotes];
  const tools = toChatTools(request.tools ?? [], request.tool_choice);
  notes.push(...tools.notes);
  const effort = toChatEffort(request.thinking, request.output_config?.effort);
  notes.push(...effort.notes);

  const chat: ChatRequest = { model: request.model, messages, stream: request.stream === true };
  if (tools.tools.length > 0) chat.tools = tools.tools;
  if (tools.toolChoice !== undefined) chat.tool_choice = tools.toolChoice;
  const format = request.output_config?.format;
  if (format !== null && format !== undefined) {
    const responseFormat: ResponseFormat = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
    chat.response_format = responseFormat;
  }
  if (effort.effort !== undefined) chat.reasoning_effort = effort.effort;
  chat.max_tokens = request.max_tokens;
  if (tools.parallelToolCalls === false) chat.parallel_tool_calls = false;
  if (request.stop_sequences !== null && request.stop_sequences !== undefined && request.stop_sequences.length > 0) chat.stop = request.stop_sequences;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.top_k === 'number') chat.top_k = request.top_k;

  if (request.metadata !== undefined && request.metadata !== null) notes.push('metadata dropped');
  if (request.context_management !== undefined && request.context_management !== null) notes.push('context_management dropped (svir keeps no context edits)');
  if (typeof request.service_tier === 'string') notes.push('service_tier dropped');
  const unknown = Object.keys(request).filter((field) => !READ_FIELDS.has(field));
  if (unknown.length > 0) notes.push(`fields unknown to a chat server dropped: ${unknown.join(' ')}`);
  if (betas.length > 0) notes.push(`anthropic-beta not honoured: ${betas.join(' ')}`);
  return { chat, notes };
}
