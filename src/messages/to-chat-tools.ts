/**
 * Messages tools and `tool_choice` → chat tools and `tool_choice` (docs/messages.md).
 * - A client tool (`{name, description, input_schema}`, `type` absent or `custom`) becomes a
 *   function whose parameters are its input schema.
 * - A deferred tool (`defer_loading: true`, Claude Code's `DeferredToolPlaceholder`) is dropped:
 *   it is loaded by Anthropic's tool search, which a local server has not, and is never to be
 *   called. A server tool (a `type` such as `web_search_20250305`, `bash_20250124`) is dropped:
 *   Anthropic runs it, or it has a schema only Claude was trained on.
 * - `tool_choice` `auto`, `any`, `tool`, `none` become `auto`, `required`, the named function,
 *   `none`; `disable_parallel_tool_use` becomes `parallel_tool_calls: false`. A choice naming a
 *   tool that is not offered is refused.
 */
import { z } from 'zod';
import type { ChatRequest, ToolChoice } from '../requests/chat-request.js';
import { SvirError } from '../errors.js';
import type { MessagesToolChoice } from './messages-request.js';

export type ChatFunctionTool = NonNullable<ChatRequest['tools']>[number];

export interface ChatTools {
  tools: ChatFunctionTool[];
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: false | undefined;
  notes: string[];
}

const clientTool = z.looseObject({
  name: z.string().min(1).max(256),
  type: z.literal('custom').nullish(),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()),
  defer_loading: z.boolean().nullish(),
});
const typedTool = z.looseObject({ type: z.string().min(1), name: z.string().nullish() });

export function toChatTools(tools: readonly unknown[], choice: MessagesToolChoice | null | undefined): ChatTools {
  const notes = new Set<string>();
  const out: ChatFunctionTool[] = [];
  const serverTools: string[] = [];
  const deferred: string[] = [];
  tools.forEach((raw, i) => {
    const typed = typedTool.safeParse(raw);
    if (typed.success && typed.data.type !== 'custom') {
      serverTools.push(typed.data.name ?? typed.data.type);
      return;
    }
    const parsed = clientTool.safeParse(raw);
    if (!parsed.success) {
      throw new SvirError('invalid_request', {
        param: `tools[${i}]`,
        message: `tools[${i}]: a tool has a name and an input_schema object: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
      });
    }
    const tool = parsed.data;
    if (tool['cache_control'] !== undefined) notes.add('cache_control dropped (the backend caches prompt prefixes itself)');
    if (tool.defer_loading === true) {
      deferred.push(tool.name);
      return;
    }
    const fn: ChatFunctionTool['function'] = { name: tool.name };
    if (typeof tool.description === 'string') fn.description = tool.description;
    fn.parameters = tool.input_schema;
    out.push({ type: 'function', function: fn });
  });
  if (deferred.length > 0) notes.add(`deferred tools dropped (defer_loading: no tool search here): ${deferred.join(' ')}`);
  if (serverTools.length > 0) notes.add(`server tools dropped (Anthropic runs them): ${serverTools.join(' ')}`);

  let toolChoice: ToolChoice | undefined;
  let parallelToolCalls: false | undefined;
  if (choice !== null && choice !== undefined) {
    if (choice.type === 'auto') toolChoice = 'auto';
    else if (choice.type === 'any') toolChoice = 'required';
    else if (choice.type === 'none') toolChoice = 'none';
    else {
      if (!out.some((tool) => tool.function.name === choice.name)) {
        throw new SvirError('invalid_request', {
          param: 'tool_choice.name',
          message: `tool_choice.name: "${choice.name}" is not one of the tools offered${deferred.includes(choice.name) || serverTools.includes(choice.name) ? ' to the backend (it was dropped)' : ''}.`,
        });
      }
      toolChoice = { type: 'function', function: { name: choice.name } };
    }
    if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) parallelToolCalls = false;
    // No tools left to choose from: a choice alone is refused by some servers.
    if (out.length === 0) {
      toolChoice = undefined;
      parallelToolCalls = undefined;
    }
  }
  return { tools: out, toolChoice, parallelToolCalls, notes: [...notes] };
}
