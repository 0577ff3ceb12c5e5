/**
 * The Responses sender: the clean steps of one chat attempt → Responses output, through one
 * translator (src/responses/create-responses-translator.ts) of the output each mode needs.
 * - `stream: true`: `event:`/`data:` pairs. Headers go out with the first chunk, as on the chat
 *   route, so a failure before it is thrown for an HTTP error (or failover); a failure after it
 *   ends the stream with `response.failed` carrying the error's code and message, never a
 *   silent end. One write per upstream read; the next read waits for `drain`.
 * - `stream: false`: the same events are made and dropped; the final response object is the
 *   body. A failure anywhere is an HTTP error.
 *
 * What is stored follows one rule (docs/responses.md, "The store"): a response is kept when the
 * client was told its id, whatever way it ended. A stream tells it with its first event: from
 * then on the response is kept completed, incomplete or failed, and failed when the client
 * leaves before its end. A `stream: false` answer tells it only in its final object: one that
 * fails is an HTTP error and nothing is kept. The record is written before the final event or
 * object is sent, so that a next turn sent anywhere the instant it arrives finds it; when it is
 * not kept, the final response says `store: false` (and `x-svir-changes` why, when its headers
 * are still unsent).
 */
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from '../errors.js';
import type { ResponsesOutputs, ResponsesTranslator } from '../responses/create-responses-translator.js';
import type { ResponseObject } from '../responses/response-object.js';
import type { ChatSendArgs, ChatSender } from './chat-completions.js';
import { ClientGoneError } from './client-gone-error.js';
import { readFoldedSteps } from './send-completion.js';
import { sendSteps } from './send-stream.js';

/** The fields of svir's error a `response.failed` carries (Codex reads `code`). */
export function failureOf(err: unknown): { code: string | null; message: string } {
  const { code, message } = toErrorResponse(err).body.error;
  return { code, message };
}

/**
 * Keeps the final response (given with its JSON, the bytes the client gets); resolves to
 * undefined once it is kept, or to why it was not (a phrase for `x-svir-changes`). Never rejects.
 */
export type KeepResponse = (response: ResponseObject, json: string) => Promise<string | undefined>;

/** A fresh translator of one output: the stream's wire text, or the folded object. */
export type MakeTranslator = <K extends 'text' | 'fold'>(output: K) => ResponsesTranslator<ResponsesOutputs[K]>;

/** What a stream that the client left is stored with. */
const CLIENT_LEFT = { code: 'client_closed', message: 'The client closed the connection before the response was complete.' };

/**
 * A fresh translator per attempt: a `stream: false` attempt that failed part-way (and is sent
 * to the next backend) leaves nothing behind in the next one's response. Without `keep`
 * (`store: false`) no final response object is made for a stream.
 */
export function responsesSender(makeTranslator: MakeTranslator, keep: KeepResponse | undefined): ChatSender {
  return (args) =>
    args.chat.stream === true ? sendEvents(args, makeTranslator('text'), keep) : sendObject(args, makeTranslator('fold'), keep);
}

/**
 * The final response's JSON with `store: false`: the same object otherwise (the spread keeps
 * every key in its place, `store` among them).
 */
function unstoredJson(response: ResponseObject): string {
  return JSON.stringify({ ...response, store: false });
}

/**
 * Keeps the finished (or failed) response, then gives the stream's last text: as it is once the
 * response is kept, else with `store: false` in the final event, whose data ends with the
 * response's JSON (encodeResponseEvent).
 */
export async function keptText(translator: ResponsesTranslator<string>, keep: KeepResponse, last: string): Promise<string> {
  const json = translator.responseJson();
  const response = translator.response();
  const unkept = await keep(response, json);
  const tail = `${json}}\n\n`;
  if (unkept === undefined || !last.endsWith(tail)) return last;
  return `${last.slice(0, last.length - tail.length)}${unstoredJson(response)}}\n\n`;
}

async function sendEvents(args: ChatSendArgs, translator: ResponsesTranslator<string>, keep: KeepResponse | undefined): Promise<void> {
  let settled = false;
  try {
    await sendSteps(args, {
      chunks: (chunks) => translator.pushAll(chunks),
      done: () => translator.finish(),
      // After the first event: response.failed (an upstream error, shutdown, a deadline, a bug).
      failed: (err) => translator.fail(failureOf(err)),
      settle:
        keep === undefined
          ? undefined
          : (last) => {
              settled = true;
              return keptText(translator, keep, last);
            },
    });
  } catch (err) {
    // The client left mid-stream, after it was told the response's id: kept as failed.
    const left = err instanceof ClientGoneError || args.signal.reason instanceof ClientGoneError;
    if (left && keep !== undefined && !settled && translator.started()) {
      translator.fail(CLIENT_LEFT);
      await keep(translator.response(), translator.responseJson());
    }
    throw err;
  }
}

/** Adds a phrase to `x-svir-changes` (a reply whose headers are unsent). */
function noteChange(reply: FastifyReply, phrase: string): void {
  const before = reply.getHeader('x-svir-changes');
  reply.header('x-svir-changes', typeof before === 'string' && before !== '' ? `${before}, ${phrase}` : phrase);
}

async function sendObject(args: ChatSendArgs, translator: ResponsesTranslator<void>, keep: KeepResponse | undefined): Promise<void> {
  await readFoldedSteps(args, (chunk) => translator.push(chunk));
  translator.finish();
  // The response's JSON is sent as it is (the bytes Fastify's JSON.stringify of the object gives) and counted by the store.
  let json = translator.responseJson();
  const unkept = keep === undefined ? undefined : await keep(translator.response(), json);
  if (unkept !== undefined) {
    json = unstoredJson(translator.response());
    noteChange(args.reply, unkept);
  }
  await args.reply.code(200).type('application/json; charset=utf-8').send(json);
}
