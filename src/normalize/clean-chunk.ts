/** The clean dialect's shapes (docs/contract.md#clean-dialect): what every client receives. */
import type { Usage } from './parts.js';

export interface CleanToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface CleanDelta {
  role?: 'assistant';
  content?: string;
  /** Under `reasoning.field` (default `reasoning_content`): the key is configurable. */
  [reasoningKey: string]: unknown;
  tool_calls?: CleanToolCallDelta[];
  refusal?: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface CleanChoice {
  index: 0;
  delta: CleanDelta;
  finish_reason: FinishReason | null;
  logprobs?: unknown;
}

export interface CleanChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: CleanChoice[];
  usage?: Usage;
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  [reasoningKey: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [{ index: 0; message: ChatCompletionMessage; finish_reason: FinishReason; logprobs: unknown }];
  usage?: Usage;
}
