/**
 * Upstream bytes → SSE events (docs/wire-protocol.md#sse-framing). eventsource-parser does the
 * framing (LF, CRLF, CR, several `data:` lines, comments, `id:`, `retry:`); a streaming UTF-8
 * decoder in front keeps a character split across two reads whole. Pure: no I/O, one instance per
 * stream.
 *
 * The streaming decoder is node:string_decoder rather than TextDecoder: same job (invalid bytes
 * become U+FFFD, a cut character waits for its end), about four times cheaper per read, and
 * this runs on every chunk.
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SvirError } from '../errors.js';
import type { SseEvent } from './parts.js';

export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

export interface SseDecoderOptions {
  /** Longest line accepted, in bytes; a longer one fails the stream instead of filling memory. */
  maxLineBytes?: number;
}

export interface SseDecoder {
  /** Decodes one read of the body; returns the events it completed, in order. */
  feed(bytes: Uint8Array): readonly SseEvent[];
  /** The body ended: dispatches an event left without its closing blank line. */
  end(): readonly SseEvent[];
}

const LF = 10;
const CR = 13;
/**
 * Shared result for the common read that completes no event: saves an allocation per read. The
 * decoder's results are read-only (`readonly SseEvent[]`), so this one stays empty: no stream
 * can put anything in it for another to read.
 */
const NO_EVENTS: readonly SseEvent[] = [];

export function createSseDecoder(options: SseDecoderOptions = {}): SseDecoder {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const text = new StringDecoder('utf8');
  let atStart = true;
  /** The events of the read being decoded; a one-element literal first (a read usually completes one). */
  let events: SseEvent[] | undefined;
  /** Bytes of the line in progress (since the last CR or LF), counted here on the raw bytes. */
  let lineBytes = 0;
  let overflow: SvirError | undefined;

  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      // `message` is the default type: the same as no `event:` field
      // (docs/wire-protocol.md#sse-framing).
      const type = message.event === 'message' ? undefined : message.event;
      const event: SseEvent = { event: type, data: message.data };
      if (events === undefined) events = [event];
      else events.push(event);
    },
    // Keep-alive comments, invalid `retry:` and unknown fields are not part of any chunk.
    onComment() {},
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') {
        overflow = new SvirError('upstream_error', {
          source: 'upstream',
          message: `The backend sent an SSE event larger than ${maxLineBytes * 2} characters without ending it.`,
        });
      }
    },
    // The line check below bounds one line; this bounds an event built of many `data:` lines.
    maxBufferSize: maxLineBytes * 2,
  });

  function take(): readonly SseEvent[] {
    if (overflow !== undefined) throw overflow;
    const out = events ?? NO_EVENTS;
    events = undefined;
    return out;
  }

  function lineTooLong(): SvirError {
    return new SvirError('upstream_error', {
      source: 'upstream',
      message: `The backend sent an SSE line longer than ${maxLineBytes} bytes.`,
    });
  }

  /**
   * Checks every line this read ends or extends against the limit, in plain loops over the bytes
   * (TypedArray indexOf costs more than the whole read on small reads). A read usually ends with
   * a line break, so the backward look for the last one stops at once; the forward look for the
   * first one runs only when a line was left open, over the rest of that line. Lines between
   * those two lie inside this read, so they are looked at only when the read itself is longer
   * than the limit.
   */
  function measureLines(bytes: Uint8Array): void {
    const length = bytes.length;
    let last = length - 1;
    while (last >= 0 && bytes[last] !== LF && bytes[last] !== CR) last--;
    if (last === -1) {
      lineBytes += length;
      if (lineBytes > maxLineBytes) throw (overflow = lineTooLong());
      return;
    }
    if (lineBytes > 0 || length > maxLineBytes) {
      let start = 0;
      for (let i = 0; i <= last; i++) {
        const byte = bytes[i];
        if (byte !== LF && byte !== CR) continue;
        if (lineBytes + i - start > maxLineBytes) throw (overflow = lineTooLong());
        lineBytes = 0;
        start = i + 1;
        // Short reads: once the open line is closed, the lines after it fit in the read.
        if (length <= maxLineBytes) break;
      }
    }
    lineBytes = length - last - 1;
    if (lineBytes > maxLineBytes) throw (overflow = lineTooLong());
  }

  /** One non-empty read → its text, lines checked, the stream's BOM dropped. */
  function decode(bytes: Uint8Array): string {
    measureLines(bytes);
    let decoded = text.write(bytes);
    if (atStart && decoded.length > 0) {
      atStart = false;
      // A byte-order mark is not part of the stream (eventsource-parser checks for it in bytes
      // it never sees, since it takes text).
      if (decoded.charCodeAt(0) === 0xfeff) decoded = decoded.slice(1);
    }
    return decoded;
  }

  return {
    feed(bytes) {
      if (overflow !== undefined) throw overflow;
      if (bytes.length === 0) return NO_EVENTS;
      parser.feed(decode(bytes));
      return take();
    },
    end() {
      if (overflow !== undefined) throw overflow;
      // Flush a character cut at the very end (it becomes U+FFFD), then end the last line and
      // the last event: "\n\n" closes both whether the body stopped mid-line, after a lone CR
      // (the parser holds it to see if LF follows) or after a line without its blank line.
      const rest = text.end();
      parser.feed(`${atStart && rest.charCodeAt(0) === 0xfeff ? rest.slice(1) : rest}\n\n`);
      atStart = false;
      lineBytes = 0;
      return take();
    },
  };
}
