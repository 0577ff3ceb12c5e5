/**
 * `max_tokens` lowered to what the backend's context can hold (docs/messages.md): Claude Code
 * always asks for 32000 (128000 for Claude's own names), more than a local model's whole
 * context, and vLLM refuses a request whose prompt and `max_tokens` together exceed
 * `max_model_len` (others stop at the context's end anyway). The room is the known context less
 * svir's estimate of the prompt, which errs high; so that an estimate above the context does
 * not leave nothing, the answer keeps at least an eighth of the context. Unknown context: as
 * the client sent it. Pure.
 */
import { estimatePromptTokens } from '../adapters/request/note-context-risk.js';
import type { ChatRequest } from '../requests/chat-request.js';

/** The least share of the context an answer keeps, whatever the prompt's estimate says. */
const MIN_SHARE = 8;

export interface FittedMaxTokens {
  chat: ChatRequest;
  /** The note for `x-svir-changes`, when it was lowered. */
  note: string | undefined;
}

export function fitMaxTokens(chat: ChatRequest, contextLength: number | undefined): FittedMaxTokens {
  const asked = chat.max_tokens;
  if (contextLength === undefined || typeof asked !== 'number' || asked <= Math.floor(contextLength / MIN_SHARE)) return { chat, note: undefined };
  const estimate = estimatePromptTokens(chat.messages, chat.tools);
  const room = Math.max(contextLength - estimate, Math.floor(contextLength / MIN_SHARE));
  if (asked <= room) return { chat, note: undefined };
  return {
    chat: { ...chat, max_tokens: room },
    note: `max_tokens ${asked} lowered to ${room} (the backend's context is ${contextLength} tokens, the prompt about ${estimate})`,
  };
}
