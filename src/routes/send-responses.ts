/**
 * The Responses sender: the clean steps of one chat attempt → Responses output, through one
 * translator (src/responses/create-responses-translator.ts) of the output each mode needs.
 * - `stream: true`: `event:`/`data:` pairs. Headers go out with the first chunk, as on the chat
 *   route, so a failure before it is thrown for an HTTP error (or failover); a failure after it
 *   ends the stream with `response.failed` carrying the error's code and message, never a
 *   silent end. One write per upstream read; the next read waits for `drain`.
 * - `stream: false`: the same events are made and dropped; the final response object is the
 *   body. A failure anywhere is an HTTP error.
 * `onEnd` gets the final response (completed, incomplete or failed) and its JSON, for the store.
 */
import { toErrorResponse } from '../errors.js';
import type { ResponsesOutputs, ResponsesTranslator } from '../responses/create-responses-translator.js';
import type { ResponseObject } from '../responses/response-object.js';
import type { ChatSendArgs, ChatSender } from './chat-completions.js';
import { readFoldedSteps } from './send-completion.js';
import { sendSteps } from './send-stream.js';

/** The fields of svir's error a `response.failed` carries (Codex reads `code`). */
export function failureOf(err: unknown): { code: string | null; message: string } {
  const { code, message } = toErrorResponse(err).body.error;
  return { code, message };
}

/** Told the final response and its JSON (the bytes the client got, which the store counts). */
export type KeepResponse = (response: ResponseObject, json: string) => void;

/** A fresh translator of one output: the stream's wire text, or the folded object. */
export type MakeTranslator = <K extends 'text' | 'fold'>(output: K) => ResponsesTranslator<ResponsesOutputs[K]>;

/**
 * A fresh translator per attempt: a `stream: false` attempt that failed part-way (and is sent
 * to the next backend) leaves nothing behind in the next one's response. Without `onEnd`
 * (`store: false`) no final response object is made for a stream.
 */
export function responsesSender(makeTranslator: MakeTranslator, onEnd: KeepResponse | undefined): ChatSender {
  return (args) =>
    args.chat.stream === true ? sendEvents(args, makeTranslator('text'), onEnd) : sendObject(args, makeTranslator('fold'), onEnd);
}

function sendEvents(args: ChatSendArgs, translator: ResponsesTranslator<string>, onEnd: KeepResponse | undefined): Promise<void> {
  return sendSteps(args, {
    chunks: (chunks) => translator.pushAll(chunks),
    done: () => translator.finish(),
    // After the first event: response.failed (an upstream error, shutdown, a deadline, a bug).
    failed: (err) => translator.fail(failureOf(err)),
    ended: onEnd === undefined ? undefined : () => onEnd(translator.response(), translator.responseJson()),
  });
}

async function sendObject(args: ChatSendArgs, translator: ResponsesTranslator<void>, onEnd: KeepResponse | undefined): Promise<void> {
  await readFoldedSteps(args, (chunk) => translator.push(chunk));
  translator.finish();
  // The response's JSON is sent as it is (the bytes Fastify's JSON.stringify of the object gives) and counted by the store.
  const json = translator.responseJson();
  onEnd?.(translator.response(), json);
  await args.reply.code(200).type('application/json; charset=utf-8').send(json);
}
