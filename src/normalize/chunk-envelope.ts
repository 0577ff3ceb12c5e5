/**
 * What every streamed chunk, chat or legacy completions, carries around its choices: read the
 * same way by both readers. Identity is a nicety: a server writing it oddly should not fail the
 * stream.
 */
import { z } from 'zod';

export const chunkEnvelopeSchema = z.object({
  id: z.string().nullish().catch(undefined),
  created: z.number().nullish().catch(undefined),
  choices: z.array(z.unknown()).nullish(),
  usage: z.unknown().optional(),
  error: z.unknown().optional(),
  object: z.unknown().optional(),
});

export type ChunkEnvelope = z.infer<typeof chunkEnvelopeSchema>;

/** Real logprobs nest about five levels; far deeper ones would overflow the chunk encoder. */
export const MAX_LOGPROBS_DEPTH = 64;
