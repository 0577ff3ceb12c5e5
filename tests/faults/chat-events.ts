/**
 * Builds the data payloads of an OpenAI-style upstream stream (what a well-behaved server sends),
 * so that the fault upstream, the suites and the soak script describe answers by their content
 * and not by hand-written JSON.
 */

export interface ToolCallSpec {
  id: string;
  name: string;
  /** The arguments string, in the pieces the server sends it in. */
  argumentPieces: string[];
}

export interface ChatStreamSpec {
  id?: string;
  model?: string;
  created?: number;
  /** Answer text, in the pieces the server sends it in. */
  content?: string[];
  toolCalls?: ToolCallSpec[];
  /** Raw finish reason; defaults to `tool_calls` with calls, else `stop`. */
  finish?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The `data:` payloads, in order, without `[DONE]`: role chunk, pieces, finish chunk, usage chunk. */
export function buildChatEvents(spec: ChatStreamSpec): string[] {
  const id = spec.id ?? 'chatcmpl-fake';
  const model = spec.model ?? 'fake-model';
  const created = spec.created ?? 1_700_000_000;
  const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

  const events: string[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (const piece of spec.content ?? []) events.push(chunk({ content: piece }, null));
  (spec.toolCalls ?? []).forEach((call, index) => {
    const [first = '', ...rest] = call.argumentPieces;
    events.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: first } }] }, null),
    );
    for (const piece of rest) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
  });
  const finish = spec.finish ?? ((spec.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
  events.push(chunk({}, finish));
  if (spec.usage !== undefined) {
    events.push(JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: spec.usage }));
  }
  return events;
}
