/**
 * `stream: false`: the same clean stream, folded into one `chat.completion`. An upstream failure
 * anywhere is an HTTP error (thrown for the error handler), never a partial answer. The steps are
 * taken as the reads come (pump-clean-steps.ts), in the same turn: no promise, no pause and
 * resume of the body per read, as pulling them one by one would cost.
 */
import type { FastifyReply } from 'fastify';
import type { StreamContext } from '../normalize/stream-context.js';
import { SvirError } from '../errors.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import { foldChunks } from '../normalize/fold-chunks.js';
import { observeChunks } from '../logging/observe-chunks.js';
import type { RequestSummary } from '../logging/request-summary.js';
import type { CleanStepPump, StepSink } from '../upstream/pump-clean-steps.js';
import { addAnswerChanges } from './changes-header.js';

export interface SendCompletionArgs {
  reply: FastifyReply;
  /** Starts the upstream reading, each step handed to `sink` as its read comes. */
  pump(sink: StepSink): CleanStepPump;
  summary: RequestSummary;
  now(): number;
  ctx: Pick<StreamContext, 'reasoningField' | 'backend'>;
  /** The clean chunks → the one answer; a `chat.completion` by default. */
  fold?(chunks: readonly CleanChunk[]): unknown;
}

/**
 * A folded answer is held whole in memory until it is sent: an upstream that never stops (a
 * server in a loop) would otherwise fill svir's memory. Far above any real answer; a client
 * that wants more streams it.
 */
export const MAX_FOLDED_BYTES = 64 * 1024 * 1024;
/** What one held chunk costs beyond its text (the objects around it), roughly. */
const CHUNK_OVERHEAD_BYTES = 256;

/** The memory a held chunk takes, roughly: its strings plus a fixed cost per chunk. */
function approximateSize(chunk: CleanChunk): number {
  let size = CHUNK_OVERHEAD_BYTES;
  for (const choice of chunk.choices) {
    for (const value of Object.values(choice.delta)) if (typeof value === 'string') size += value.length;
    for (const call of choice.delta.tool_calls ?? []) size += call.function.arguments.length + (call.function.name?.length ?? 0);
    if (choice.logprobs !== undefined) size += JSON.stringify(choice.logprobs).length;
  }
  return size;
}

/**
 * Reads a clean stream to its end for an answer sent in one piece, handing each chunk to
 * `take`, within MAX_FOLDED_BYTES; an upstream failure anywhere is thrown (an HTTP error).
 * Chat completions, legacy completions and Responses objects all fold through this.
 */
export async function readFoldedSteps(
  args: Pick<SendCompletionArgs, 'reply' | 'pump' | 'summary' | 'now' | 'ctx'>,
  take: (chunk: CleanChunk) => void,
): Promise<void> {
  let held = 0;
  let failed: { err: unknown } | undefined;
  const pump = args.pump({
    take(step) {
      observeChunks(args.summary, step.chunks, args.now);
      // The answer goes out after this: what svir changed in it is in the header.
      if (step.notes !== undefined) addAnswerChanges(args.reply, args.summary, step.notes);
      for (const chunk of step.chunks) {
        take(chunk);
        held += approximateSize(chunk);
      }
      if (held > MAX_FOLDED_BYTES) {
        // Thrown here, the pump closes the upstream body and `finished` rejects with it.
        throw new SvirError('upstream_error', {
          source: 'upstream',
          backend: args.ctx.backend,
          message:
            `backend "${args.ctx.backend}" sent an answer larger than ${MAX_FOLDED_BYTES / 1024 / 1024} MiB, ` +
            'too large to return in one piece; ask for it with stream: true.',
        });
      }
      // The step with the error is the last one.
      if (step.error !== undefined) failed = { err: step.error };
      // Everything is held until the end anyway: the reading never waits on this side.
      return true;
    },
  });
  await pump.finished;
  if (failed !== undefined) throw failed.err;
}

export async function sendCompletion(args: SendCompletionArgs): Promise<void> {
  const chunks: CleanChunk[] = [];
  await readFoldedSteps(args, (chunk) => chunks.push(chunk));
  const completion = args.fold === undefined ? foldChunks(chunks, args.ctx) : args.fold(chunks);
  await args.reply.code(200).type('application/json; charset=utf-8').send(completion);
}
