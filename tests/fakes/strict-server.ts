/**
 * A fake stricter OpenAI-compatible server (docs/wire-protocol.md#optional-fields): it validates
 * the request one field at a time and refuses the first optional field it does not take, so a
 * request with two of them is refused twice before it is answered: `stream_options` with a 422
 * validation list (the form of a pydantic-based server), the next with a 400 in OpenAI's form
 * ("Unrecognized request argument supplied: ..."). A field in `refusesAgain` is refused whether it
 * is sent or not, like a server that names a field in every refusal, to show the retries end.
 */
import type { ServerResponse } from 'node:http';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { pieces, sseData, writeEventStream, writeJson, type FakeChatBody } from './fake-model.js';

export interface StrictServerOptions {
  /** Optional fields it refuses, checked in this order. */
  refuses?: readonly string[];
  /** Its first is named in every refusal, sent or not: the server never answers. */
  refusesAgain?: readonly string[];
}

function refuse(res: ServerResponse, field: string): void {
  if (field === 'stream_options') {
    writeJson(res, 422, { detail: [{ type: 'extra_forbidden', loc: ['body', field], msg: 'Extra inputs are not permitted', input: { include_usage: true } }] });
    return;
  }
  writeJson(res, 400, { error: { message: `Unrecognized request argument supplied: ${field}`, type: 'invalid_request_error', param: null, code: null } });
}

function answer(body: FakeChatBody, res: ServerResponse, options: Required<StrictServerOptions>): void {
  const record: Record<string, unknown> = body;
  const refused = options.refusesAgain[0] ?? options.refuses.find((field) => field in record);
  if (refused !== undefined) {
    refuse(res, refused);
    return;
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sseData({ id: 'chatcmpl-strict', object: 'chat.completion.chunk', created: 1_790_000_100, model: 'strict-2026', choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces('Hello from a strict server.')) events.push(chunk({ content: piece }));
  events.push(chunk({}, 'stop'), sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startStrictServer(options: StrictServerOptions = {}): Promise<ScriptedUpstream> {
  const settings: Required<StrictServerOptions> = { refuses: ['stream_options', 'reasoning_effort'], refusesAgain: [], ...options };
  const upstream = await startScriptedUpstream();
  upstream.models(['strict-2026']);
  upstream.chat(
    fakeChatHandler(
      (res) => writeJson(res, 422, { detail: [{ type: 'missing', loc: ['body', 'messages'], msg: 'Field required' }] }),
      (body, res) => answer(body, res, settings),
    ),
  );
  return upstream;
}
