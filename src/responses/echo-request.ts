/**
 * The fields of the client's request a response object repeats, as OpenAI fills them when the
 * request left them out (tool_choice `auto`, parallel calls on, plain text, `store` on, a
 * function's `strict`).
 */
import { functionStrict } from './function-strict.js';
import type { ResponseEcho } from './response-object.js';
import type { ResponsesRequest } from './responses-request.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A function tool as the client sent it, with the `strict` it was given when it had none
 * (function-strict.ts), last. Copied key by key, not `{ ...tool, strict }`: a key new after a
 * spread takes V8's slow path on Node 20, about 2 µs on every Responses request with tools
 * (docs/architecture.md, "Rules for code here").
 */
function withStrict(tool: unknown): unknown {
  if (!isRecord(tool) || tool['type'] !== 'function' || typeof tool['strict'] === 'boolean') return tool;
  const echoed: Record<string, unknown> = {};
  for (const key of Object.keys(tool)) {
    // An own `__proto__` key (JSON.parse makes one) stays a key, as the spread kept it.
    if (key === '__proto__') Object.defineProperty(echoed, key, { value: tool[key], enumerable: true, writable: true, configurable: true });
    else echoed[key] = tool[key];
  }
  echoed['strict'] = functionStrict(undefined, tool['parameters']);
  return echoed;
}

/** The tools as sent, each function (a namespace's too) with its `strict`, as OpenAI echoes them. */
function echoTools(tools: readonly unknown[]): unknown[] {
  return tools.map((tool) => {
    if (isRecord(tool) && tool['type'] === 'namespace' && Array.isArray(tool['tools'])) return { ...tool, tools: tool['tools'].map(withStrict) };
    return withStrict(tool);
  });
}

export function echoRequest(request: ResponsesRequest): ResponseEcho {
  const echo: ResponseEcho = {
    instructions: request.instructions ?? null,
    tools: echoTools(request.tools ?? []),
    tool_choice: request.tool_choice ?? 'auto',
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: request.store !== false,
    metadata: request.metadata ?? {},
    previous_response_id: request.previous_response_id ?? null,
    truncation: request.truncation ?? 'disabled',
  };
  if (typeof request.text?.verbosity === 'string') echo.text.verbosity = request.text.verbosity;
  if (typeof request.user === 'string') echo.user = request.user;
  if (typeof request.safety_identifier === 'string') echo.safety_identifier = request.safety_identifier;
  if (typeof request.prompt_cache_key === 'string') echo.prompt_cache_key = request.prompt_cache_key;
  return echo;
}
