/**
 * The live page's feed, GET /svir/api/events (docs/live-page.md): Server-Sent Events to every
 * open page. On connect, `state` (the full state); then `request` for each routed request as its
 * response closes, and `live` (backends, requests in flight, chart) once a second. One timer
 * and one subscription serve every reader, and exist only while one is connected: with no page
 * open the feed costs nothing. A reader that does not keep up (more than MAX_BUFFERED_BYTES
 * waiting in its socket) is disconnected; the page reconnects and starts again from `state`.
 */
import { fullState, liveState, requestView, type LiveStateSources } from './live-state.js';
import type { FinishedRequest } from './recent-requests.js';

export const LIVE_INTERVAL_MS = 1_000;
const MAX_BUFFERED_BYTES = 1 << 20;

/** What the feed uses of a response (a ServerResponse is one). */
export interface FeedReader {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(text: string): unknown;
  end(): unknown;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
  /** Bytes written and not yet taken by the socket. */
  readonly writableLength: number;
}

export interface EventFeed {
  /** Sends the stream's head and the full state, then keeps `response` updated until it closes. */
  open(response: FeedReader, headers: Record<string, string>): void;
  /** Ends every reader's stream (the server is closing). */
  closeAll(): void;
  readonly readers: number;
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function createEventFeed(sources: LiveStateSources, intervalMs: number = LIVE_INTERVAL_MS): EventFeed {
  const readers = new Set<FeedReader>();
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  function broadcast(text: string): void {
    for (const reader of readers) {
      if (reader.writableLength > MAX_BUFFERED_BYTES) {
        reader.destroy();
        continue;
      }
      reader.write(text);
    }
  }

  function start(): void {
    timer = setInterval(() => broadcast(event('live', liveState(sources))), intervalMs);
    timer.unref();
    unsubscribe = sources.monitor.subscribe((request: FinishedRequest) => broadcast(event('request', requestView(request))));
  }

  function stop(): void {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    unsubscribe?.();
    unsubscribe = undefined;
  }

  function remove(response: FeedReader): void {
    if (!readers.delete(response)) return;
    if (readers.size === 0) stop();
  }

  return {
    open(response, headers) {
      response.writeHead(200, headers);
      response.write(event('state', fullState(sources)));
      readers.add(response);
      if (readers.size === 1) start();
      response.once('close', () => remove(response));
    },
    closeAll() {
      for (const reader of [...readers]) {
        remove(reader);
        reader.end();
      }
    },
    get readers() {
      return readers.size;
    },
  };
}
