/**
 * `stream: false`: the same clean stream, folded into one `chat.completion`. An upstream failure
 * anywhere is an HTTP error (thrown for the error handler), never a partial answer.
 */
import type { FastifyReply } from 'fastify';
import type { StreamContext } from '../adapters/adapter.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import { foldChunks } from '../normalize/fold-chunks.js';
import type { NormalizerStep } from '../normalize/normalizer.js';
import { observeChunk, type RequestSummary } from '../request-summary.js';

export interface SendCompletionArgs {
  reply: FastifyReply;
  steps: AsyncGenerator<NormalizerStep, void, undefined>;
  summary: RequestSummary;
  now(): number;
  ctx: Pick<StreamContext, 'reasoningField'>;
}

export async function sendCompletion(args: SendCompletionArgs): Promise<void> {
  const chunks: CleanChunk[] = [];
  for await (const step of args.steps) {
    for (const chunk of step.chunks) {
      observeChunk(args.summary, chunk, args.now());
      chunks.push(chunk);
    }
    if (step.error !== undefined) throw step.error;
    if (step.done) break;
  }
  const completion = foldChunks(chunks, args.ctx);
  await args.reply.code(200).type('application/json; charset=utf-8').send(completion);
}
