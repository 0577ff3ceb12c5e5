/**
 * Clean chunks (src/normalize/clean-chunk.ts) for the tests of what reads them (the item machine,
 * the Responses and Messages sinks, the metrics): each test names its stream by its own id and
 * model, and gets `chunk(delta, finish)` (one choice) and `usage(usage)` (no choice, the usage).
 */
import type { CleanChunk, CleanDelta, FinishReason } from '../../src/normalize/clean-chunk.js';
import type { Usage } from '../../src/normalize/parts.js';

export interface CleanChunkMaker {
  chunk(delta: CleanDelta, finish?: FinishReason | null): CleanChunk;
  usage(usage: Usage): CleanChunk;
}

export function cleanChunkMaker(envelope: { id: string; model: string }): CleanChunkMaker {
  const { id, model } = envelope;
  return {
    chunk: (delta, finish = null) => ({ id, object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] }),
    usage: (usage) => ({ id, object: 'chat.completion.chunk', created: 1, model, choices: [], usage }),
  };
}
