/**
 * Clean chunks through the Messages stream sink and the fold sink, each on its own item machine,
 * as the route drives them: the stream's text taken after every chunk, then the end.
 */
import { ItemMachine } from '../../src/items/item-machine.js';
import { MessageFoldSink } from '../../src/messages/message-fold-sink.js';
import type { MessagesFailure } from '../../src/messages/messages-failure.js';
import { MessagesStreamSink } from '../../src/messages/messages-stream-sink.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { parseMessagesEvents, type MessagesEvent } from './expect-messages-stream.js';
import { cleanChunkMaker } from '../helpers/clean-chunk-maker.js';

export const INIT = { id: 'msg_test', model: 'client-model', inputEstimate: 11, requestId: 'req-1' };

export const { chunk, usage: usageChunk } = cleanChunkMaker({ id: 'c', model: 'client-model' });

export interface Run {
  text: string;
  events: MessagesEvent[];
  fold: MessageFoldSink;
}

/** The chunks through both sinks, the stream's text taken after every chunk, then the end. */
export function run(chunks: readonly CleanChunk[], failure?: MessagesFailure, reasoningField = 'reasoning_content'): Run {
  const sink = new MessagesStreamSink(INIT);
  const machine = new ItemMachine<MessagesFailure>({ reasoningField }, sink);
  const fold = new MessageFoldSink(INIT);
  const folding = new ItemMachine<MessagesFailure>({ reasoningField }, fold);
  let text = '';
  for (const c of chunks) {
    machine.push(c);
    folding.push(c);
    text += sink.take();
  }
  if (failure === undefined) {
    machine.finish();
    folding.finish();
  } else {
    machine.fail(failure);
    folding.fail(failure);
  }
  text += sink.take();
  return { text, events: parseMessagesEvents(text), fold };
}

