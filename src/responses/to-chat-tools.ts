/**
 * Responses `tools` → chat tools. Function tools (flat form) become chat functions; the
 * functions of a `namespace` tool are flattened (flat-tool-name.ts) and remembered, so that a
 * call comes back to the client under its own name and namespace. Tools a chat backend cannot
 * run (built-ins such as web_search, file_search, computer use, code interpreter, MCP, image
 * generation, local shell; freeform `custom` tools) are dropped with a note: Codex sends
 * web_search on every turn, and a 400 would fail every turn. A tool_choice that forces one of
 * them is refused (to-chat-tool-choice.ts).
 */
import { z } from 'zod';
import type { ChatRequest } from '../requests/chat-request.js';
import { SvirError } from '../errors.js';
import { flatToolName } from './flat-tool-name.js';
import { functionStrict } from './function-strict.js';

/** A Responses function tool (flat form), as svir reads it; readFunctionTool reads the same in place. */
export const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1).max(256),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const namespaceToolSchema = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1),
  tools: z.array(z.looseObject({ type: z.string().min(1) })),
});

const typedSchema = z.looseObject({ type: z.string().min(1), name: z.string().nullish() });

/** A chat function tool, as the chat request holds it. */
export type ChatFunctionTool = NonNullable<ChatRequest['tools']>[number];

/** How a chat tool's call goes back to the client. */
export interface ToolOrigin {
  name: string;
  namespace?: string;
}

export interface ChatTools {
  tools: ChatFunctionTool[];
  /** Chat name → the client's name (and namespace): only flattened tools are listed. */
  origins: Map<string, ToolOrigin>;
  /** What was dropped, as the client named it (`web_search`, `custom apply_patch`). */
  dropped: string[];
}

function toChatTool(tool: FunctionTool, name: string): ChatFunctionTool {
  const fn: ChatFunctionTool['function'] = { name };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (tool.parameters !== null && tool.parameters !== undefined) fn.parameters = tool.parameters;
  // The Responses default, not the chat one (function-strict.ts): the client's, or true when the schema can be strict.
  fn.strict = functionStrict(tool.strict, tool.parameters);
  return { type: 'function', function: fn };
}

/** A function tool readFunctionTool did not take: the schema's reading, or the 400 naming what is wrong. */
function parseFunctionTool(entry: unknown, where: string): FunctionTool {
  const parsed = functionToolSchema.safeParse(entry);
  if (!parsed.success) throw invalid(where, parsed.error);
  return parsed.data;
}

function invalid(where: string, error: z.ZodError): SvirError {
  const issue = error.issues[0];
  const detail = issue === undefined ? 'invalid' : `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
  return new SvirError('invalid_request', { param: where, message: `Invalid request: ${where}: ${detail}.` });
}

type FunctionTool = z.infer<typeof functionToolSchema>;

function isNullish(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A function tool that functionToolSchema would take, read field by field (the fields it reads,
 * checked as it checks them), else undefined: the schema then reads it and names what is wrong.
 * A Codex turn sends about ten tools, whose schemas zod copied key by key on every request
 * (bench/README.md, responses-micro.ts); the tool is read in place, and nothing downstream
 * changes a tool (adapters copy what they rewrite).
 */
function readFunctionTool(entry: unknown): FunctionTool | undefined {
  if (!isPlainRecord(entry) || entry['type'] !== 'function') return undefined;
  const { name, description, parameters, strict } = entry;
  if (typeof name !== 'string' || name.length < 1 || name.length > 256) return undefined;
  if (!isNullish(description) && typeof description !== 'string') return undefined;
  if (!isNullish(parameters) && !isPlainRecord(parameters)) return undefined;
  // The schema's record drops an own `__proto__` key (svir's JSON parser refuses one anyway): that way gives what it gives.
  if (isPlainRecord(parameters) && Object.hasOwn(parameters, '__proto__')) return undefined;
  if (!isNullish(strict) && typeof strict !== 'boolean') return undefined;
  return { type: 'function', name, description, parameters, strict };
}

export function toChatTools(raw: readonly unknown[]): ChatTools {
  const tools: ChatFunctionTool[] = [];
  const origins = new Map<string, ToolOrigin>();
  const dropped: string[] = [];
  const seen = new Set<string>();
  const add = (tool: ChatFunctionTool, where: string): void => {
    const name = tool.function.name;
    if (seen.has(name)) {
      throw new SvirError('invalid_request', {
        param: where,
        message: `Invalid request: ${where}: the tool name "${name}" is used twice (a namespaced function is offered to the backend as "namespace__name").`,
      });
    }
    seen.add(name);
    tools.push(tool);
  };

  raw.forEach((entry, i) => {
    const where = `tools[${i}]`;
    // The common tool (a well-formed function) is read once; any other goes the long way, which names what is wrong.
    const fast = readFunctionTool(entry);
    if (fast !== undefined) {
      add(toChatTool(fast, fast.name), where);
      return;
    }
    const typed = typedSchema.safeParse(entry);
    if (!typed.success) throw invalid(where, typed.error);
    const type = typed.data.type;
    if (type === 'function') {
      const parsed = parseFunctionTool(entry, where);
      add(toChatTool(parsed, parsed.name), where);
      return;
    }
    if (type === 'namespace') {
      const parsed = namespaceToolSchema.safeParse(entry);
      if (!parsed.success) throw invalid(where, parsed.error);
      const namespace = parsed.data.name;
      parsed.data.tools.forEach((inner, j) => {
        const innerWhere = `${where}.tools[${j}]`;
        if (inner.type !== 'function') {
          dropped.push(`${inner.type} tool in namespace ${namespace}`);
          return;
        }
        const fn = readFunctionTool(inner) ?? parseFunctionTool(inner, innerWhere);
        const flat = flatToolName(namespace, fn.name);
        add(toChatTool(fn, flat), innerWhere);
        origins.set(flat, { name: fn.name, namespace });
      });
      return;
    }
    const name = typed.data.name;
    dropped.push(typeof name === 'string' && name.length > 0 ? `${type} ${name}` : type);
  });
  return { tools, origins, dropped };
}
