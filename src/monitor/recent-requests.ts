/**
 * The last requests svir answered, for the live page (docs/live-page.md): a ring of fixed size,
 * so memory stays bounded whatever the load. Each slot keeps the request's log line (built
 * anyway when its response closes, request-summary.ts) and its route; nothing is copied until
 * the page asks.
 */
import type { SummaryLine } from '../logging/summary-line.js';

export interface FinishedRequest {
  /** chat, responses, embeddings, completions, messages (routeLabelOf). */
  route: string;
  /** The request's start, ms since the epoch. */
  startedAt: number;
  line: SummaryLine;
}

export interface RecentRequests {
  push(request: FinishedRequest): void;
  /** Oldest first. */
  list(): FinishedRequest[];
  readonly capacity: number;
}

export function createRecentRequests(capacity: number): RecentRequests {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  const slots: Array<FinishedRequest | undefined> = new Array<FinishedRequest | undefined>(capacity);
  // The slot the next request goes into; `count` stops at capacity.
  let next = 0;
  let count = 0;
  return {
    capacity,
    push(request) {
      slots[next] = request;
      next = next + 1 === capacity ? 0 : next + 1;
      if (count < capacity) count += 1;
    },
    list() {
      const out: FinishedRequest[] = [];
      const first = count < capacity ? 0 : next;
      for (let i = 0; i < count; i += 1) {
        const slot = slots[(first + i) % capacity];
        if (slot !== undefined) out.push(slot);
      }
      return out;
    },
  };
}
