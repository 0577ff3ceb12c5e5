/**
 * Responses `tool_choice` → chat `tool_choice`, over the tools to-chat-tools.ts kept. A choice
 * that forces a tool no chat backend can run (a built-in, a freeform `custom` tool, MCP) is a
 * 400 that names it: answering without the tool the client demanded would be a silent change.
 * `allowed_tools` is honoured by offering only the allowed functions.
 */
import { SvirError } from '../errors.js';
import type { ToolChoice } from '../requests/chat-request.js';
import type { ResponsesToolChoice } from './responses-request.js';
import type { ChatFunctionTool, ToolOrigin } from './to-chat-tools.js';

export interface ChatToolChoice {
  tools: ChatFunctionTool[];
  toolChoice: ToolChoice | undefined;
  notes: string[];
}

function forced(what: string): SvirError {
  return new SvirError('invalid_request', {
    param: 'tool_choice',
    message: `tool_choice forces ${what}, which svir cannot run: its backends are chat servers that call only function tools.`,
  });
}

/** The chat name a Responses function name means: the flat name, or the one namespaced function of that name. */
function chatNameOf(name: string, tools: readonly ChatFunctionTool[], origins: ReadonlyMap<string, ToolOrigin>): string | undefined {
  if (tools.some((tool) => tool.function.name === name)) return name;
  const inner = [...origins].filter(([, origin]) => origin.name === name);
  return inner.length === 1 ? inner[0]?.[0] : undefined;
}

export function toChatToolChoice(
  choice: ResponsesToolChoice | null | undefined,
  tools: ChatFunctionTool[],
  origins: ReadonlyMap<string, ToolOrigin>,
  dropped: readonly string[],
): ChatToolChoice {
  if (choice === null || choice === undefined || choice === 'auto' || choice === 'none') {
    return { tools, toolChoice: choice ?? undefined, notes: [] };
  }
  if (choice === 'required') {
    if (tools.length === 0 && dropped.length > 0) forcedBuiltIns(dropped);
    return { tools, toolChoice: 'required', notes: [] };
  }
  if (choice.type === 'function') {
    const name = typeof choice.name === 'string' ? choice.name : '';
    const chatName = chatNameOf(name, tools, origins);
    if (chatName === undefined) {
      throw new SvirError('invalid_request', {
        param: 'tool_choice',
        message: `tool_choice names the function "${name}", which is not among the request's function tools.`,
      });
    }
    return { tools, toolChoice: { type: 'function', function: { name: chatName } }, notes: [] };
  }
  if (choice.type === 'allowed_tools') {
    if (!('mode' in choice) || !Array.isArray(choice.tools)) {
      throw new SvirError('invalid_request', {
        param: 'tool_choice',
        message: 'Invalid request: tool_choice allowed_tools needs a mode (auto or required) and a list of tools.',
      });
    }
    const allowed = new Set<string>();
    for (const entry of choice.tools) {
      if (entry.type !== 'function' || typeof entry.name !== 'string') continue;
      const chatName = chatNameOf(entry.name, tools, origins);
      if (chatName !== undefined) allowed.add(chatName);
    }
    const kept = tools.filter((tool) => allowed.has(tool.function.name));
    const mode = choice.mode === 'required' ? 'required' : 'auto';
    if (kept.length === 0 && mode === 'required') forced('one of tool_choice.allowed_tools, none of them a function tool of the request');
    return { tools: kept, toolChoice: kept.length === 0 ? undefined : mode, notes: ['tool_choice allowed_tools sent as the tool list'] };
  }
  const name = typeof choice.name === 'string' && choice.name.length > 0 ? ` ${choice.name}` : '';
  throw forced(`the ${choice.type} tool${name}`);
}

function forcedBuiltIns(dropped: readonly string[]): never {
  throw forced(`a tool call while the request's only tools are ${dropped.join(', ')}`);
}
