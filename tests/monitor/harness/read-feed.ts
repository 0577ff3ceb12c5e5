/**
 * Reads svir's live feed (GET /svir/api/events) as the page does: fetch with a header and a
 * stream reader, events split at blank lines. `next` waits for the next event, `nextOf` for the
 * next of one name; `ended` resolves once svir ends the stream.
 */
export interface FeedEvent {
  event: string;
  data: unknown;
}

export interface Feed {
  next(timeoutMs?: number): Promise<FeedEvent>;
  nextOf(name: string, timeoutMs?: number): Promise<FeedEvent>;
  /** true once the server ended the stream (false when this side closed it). */
  ended: Promise<boolean>;
  close(): void;
}

function parseBlock(block: string): FeedEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return data.length === 0 ? undefined : { event, data: JSON.parse(data.join('\n')) };
}

export async function readFeed(url: string, headers: Record<string, string>): Promise<Feed> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200 || response.body === null) throw new Error(`feed answered ${response.status}`);
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) throw new Error('the feed is not an event stream');
  const queue: FeedEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) return true;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const event = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event !== undefined) queue.push(event);
        }
        wake?.();
      }
    } catch {
      return false;
    } finally {
      done = true;
      wake?.();
    }
  })();

  async function next(timeoutMs = 5_000): Promise<FeedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = queue.shift();
      if (event !== undefined) return event;
      if (done) throw new Error('the feed ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no feed event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  return {
    next,
    async nextOf(name, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = await next(Math.max(deadline - Date.now(), 1));
        if (event.event === name) return event;
      }
    },
    ended,
    close() {
      controller.abort();
    },
  };
}
