import type { CleanChunk } from '../normalize/clean-chunk.js';
import type { RequestSummary } from './request-summary.js';

/**
 * Reads what the log line needs out of the clean chunks of one step on their way to the client.
 * The clock is read for the request's first chunk only: the only time the line keeps.
 */
export function observeChunks(summary: RequestSummary, chunks: readonly CleanChunk[], now: () => number): void {
  if (chunks.length === 0) return;
  summary.firstChunkAt ??= now();
  for (const chunk of chunks) {
    if (chunk.usage !== undefined) summary.usage = chunk.usage;
    const reason = chunk.choices[0]?.finish_reason;
    if (reason !== undefined && reason !== null) summary.finishReason = reason;
  }
}
