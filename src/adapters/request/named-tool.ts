import type { ChatRequest } from '../../requests/chat-request.js';
import { SvirError } from '../../errors.js';
import type { BackendInfo } from '../adapter.js';

type Tool = NonNullable<ChatRequest['tools']>[number];

export interface NamedTool {
  name: string;
  tool: Tool;
}

/**
 * The tool a named `tool_choice` asks for: undefined when the choice is not a named function,
 * an error when it names a function the request does not declare (OpenAI refuses that too, and
 * a rewrite that offers only that tool would otherwise offer nothing).
 */
export function namedTool(body: ChatRequest, backend: BackendInfo): NamedTool | SvirError | undefined {
  const choice = body.tool_choice;
  if (choice == null || typeof choice === 'string') return undefined;
  const name = choice.function.name;
  const tool = (body.tools ?? []).find((candidate) => candidate.function.name === name);
  if (tool === undefined) {
    return new SvirError('invalid_request', {
      message: `tool_choice names the function "${name}", which is not among the request's tools.`,
      param: 'tool_choice',
      backend: backend.config.name,
    });
  }
  return { name, tool };
}
