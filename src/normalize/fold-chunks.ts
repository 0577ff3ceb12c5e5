/**
 * `stream: false`: the clean chunks of a complete stream → one `chat.completion`. The same
 * normalizer served the stream, so the folded answer says exactly what a streaming client read:
 * content, reasoning under the configured key, tool calls, refusal, finish reason, usage.
 */
import type { StreamContext } from './stream-context.js';
import { SvirError } from '../errors.js';
import type { ChatCompletion, ChatCompletionMessage, CleanChunk, FinishReason } from './clean-chunk.js';
import type { Usage } from './parts.js';
import { readLogprobLists } from './read-logprob-lists.js';

interface FoldedCall {
  id: string;
  name: string;
  args: string[];
}

export function foldChunks(chunks: readonly CleanChunk[], ctx: Pick<StreamContext, 'reasoningField'>): ChatCompletion {
  const first = chunks[0];
  if (first === undefined) throw incomplete('no chunk at all');
  const content: string[] = [];
  const reasoning: string[] = [];
  const refusal: string[] = [];
  const calls: FoldedCall[] = [];
  /** Joined token lists; null until a chunk carries that list. */
  let logprobContent: unknown[] | null = null;
  let logprobRefusal: unknown[] | null = null;
  let sawLogprobs = false;
  let finishReason: FinishReason | null = null;
  let usage: Usage | undefined;

  for (const chunk of chunks) {
    if (chunk.usage !== undefined) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const delta = choice.delta;
    if (typeof delta.content === 'string') content.push(delta.content);
    const thought = delta[ctx.reasoningField];
    if (typeof thought === 'string') reasoning.push(thought);
    if (typeof delta.refusal === 'string') refusal.push(delta.refusal);
    if (delta.tool_calls !== undefined) {
      for (const piece of delta.tool_calls) {
        // The clean stream sends indices 0..n-1, each call's first piece with its id and name.
        let call = calls[piece.index];
        if (call === undefined) {
          call = { id: piece.id ?? '', name: piece.function.name ?? '', args: [] };
          calls[piece.index] = call;
        }
        call.args.push(piece.function.arguments);
      }
    }
    const lists = choice.logprobs === undefined ? undefined : readLogprobLists(choice.logprobs);
    if (lists !== undefined) {
      sawLogprobs = true;
      if (lists.content !== null) (logprobContent ??= []).push(...lists.content);
      if (lists.refusal !== null) (logprobRefusal ??= []).push(...lists.refusal);
    }
    if (choice.finish_reason !== null) finishReason = choice.finish_reason;
  }
  if (finishReason === null) throw incomplete('no finish reason');

  const message: ChatCompletionMessage = {
    role: 'assistant',
    content: content.length > 0 ? content.join('') : null,
    refusal: refusal.length > 0 ? refusal.join('') : null,
  };
  if (reasoning.length > 0) message[ctx.reasoningField] = reasoning.join('');
  const toolCalls = calls.filter((call) => call !== undefined);
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.args.join('') },
    }));
  }

  const completion: ChatCompletion = {
    id: first.id,
    object: 'chat.completion',
    created: first.created,
    model: first.model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: finishReason,
        logprobs: sawLogprobs ? { content: logprobContent, refusal: logprobRefusal } : null,
      },
    ],
  };
  if (usage !== undefined) completion.usage = usage;
  return completion;
}

function incomplete(what: string): SvirError {
  // Only a stream the normalizer completed is folded; anything else is svir's own bug.
  return new SvirError('internal_error', { message: `Cannot fold an unfinished stream: ${what}.` });
}
