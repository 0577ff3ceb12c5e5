/**
 * The Messages sender: the clean steps of one chat attempt → Messages output, through the item
 * machine (src/items/) and a Messages sink for each mode.
 * - `stream: true`: `event:`/`data:` pairs (messages-stream-sink.ts). Headers go out with the
 *   first event, as on the chat route, so a failure before it is thrown for an HTTP error in
 *   Anthropic's shape (or failover); a failure after it closes the open block and ends the
 *   stream with one `event: error`. One write per upstream read.
 * - `stream: false`: the same machine folded into one `message` object (message-fold-sink.ts).
 */
import { ItemMachine } from '../items/item-machine.js';
import { MessageFoldSink } from '../messages/message-fold-sink.js';
import { toMessagesFailure, type MessagesFailure } from '../messages/messages-failure.js';
import { MessagesStreamSink } from '../messages/messages-stream-sink.js';
import type { ChatSendArgs, ChatSender } from './chat-completions.js';
import { readFoldedSteps } from './send-completion.js';
import { sendSteps } from './send-stream.js';

export interface MessagesOutput {
  id: string;
  model: string;
  inputEstimate: number;
  requestId: string;
  reasoningField: string;
}

export function messagesSender(output: MessagesOutput): ChatSender {
  return (args) => (args.chat.stream === true ? sendEvents(args, output) : sendMessage(args, output));
}

function sendEvents(args: ChatSendArgs, output: MessagesOutput): Promise<void> {
  const sink = new MessagesStreamSink(output);
  const machine = new ItemMachine<MessagesFailure>({ reasoningField: output.reasoningField }, sink);
  return sendSteps(args, {
    chunks(chunks) {
      for (const chunk of chunks) machine.push(chunk);
      return sink.take();
    },
    done() {
      machine.finish();
      return sink.take();
    },
    failed(err) {
      machine.fail(toMessagesFailure(err));
      return sink.take();
    },
  });
}

async function sendMessage(args: ChatSendArgs, output: MessagesOutput): Promise<void> {
  const sink = new MessageFoldSink(output);
  const machine = new ItemMachine<MessagesFailure>({ reasoningField: output.reasoningField }, sink);
  await readFoldedSteps(args, (chunk) => machine.push(chunk));
  machine.finish();
  await args.reply.code(200).type('application/json; charset=utf-8').send(sink.message);
}
