/**
 * Upstream bytes → SSE events (reference §3.1). eventsource-parser does the framing (LF, CRLF,
 * CR, several `data:` lines, comments, `id:`, `retry:`); a streaming TextDecoder in front keeps
 * a UTF-8 character split across two reads whole. Pure: no I/O, one instance per stream.
 */
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
  feed(bytes: Uint8Array): SseEvent[];
  /** The body ended: dispatches an event left without its closing blank line. */
  end(): SseEvent[];
}

const LF = 10;
const CR = 13;
/** Shared result for the common read that completes no event: saves an allocation per read. */
const NO_EVENTS: SseEvent[] = [];

export function createSseDecoder(options: SseDecoderOptions = {}): SseDecoder {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const text = new TextDecoder('utf-8');
  let events: SseEvent[] = [];
  /** Bytes of the line in progress (since the last CR or LF), counted here on the raw bytes. */
  let lineBytes = 0;
  let overflow: SvirError | undefined;

  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      // `message` is the default type: the same as no `event:` field (reference §3.1).
      const type = message.event === 'message' ? undefined : message.event;
      events.push({ event: type, data: message.data });
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

  function take(): SseEvent[] {
    if (overflow !== undefined) throw overflow;
    if (events.length === 0) return NO_EVENTS;
    const out = events;
    events = [];
    return out;
  }

  function lineTooLong(): SvirError {
    return new SvirError('upstream_error', {
      source: 'upstream',
      message: `The backend sent an SSE line longer than ${maxLineBytes} bytes.`,
    });
  }

  /**
   * Checks every line this read ends or extends against the limit. The next LF and CR are
   * looked up with native indexOf and remembered, so each read is scanned once whatever its
   * mix of line ends.
   */
  function measureLines(bytes: Uint8Array): void {
    let start = 0;
    let nextLf = bytes.indexOf(LF);
    let nextCr = bytes.indexOf(CR);
    while (nextLf !== -1 || nextCr !== -1) {
      const lineEnd = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : nextLf < nextCr ? nextLf : nextCr;
      if (lineBytes + lineEnd - start > maxLineBytes) throw (overflow = lineTooLong());
      lineBytes = 0;
      start = lineEnd + 1;
      if (nextLf === lineEnd) nextLf = bytes.indexOf(LF, start);
      if (nextCr === lineEnd) nextCr = bytes.indexOf(CR, start);
    }
    lineBytes += bytes.length - start;
    if (lineBytes > maxLineBytes) throw (overflow = lineTooLong());
  }

  return {
    feed(bytes) {
      if (overflow !== undefined) throw overflow;
      if (bytes.length === 0) return NO_EVENTS;
      measureLines(bytes);
      parser.feed(text.decode(bytes, { stream: true }));
      return take();
    },
    end() {
      if (overflow !== undefined) throw overflow;
      // Flush a character cut at the very end (it becomes U+FFFD), then end the last line and
      // the last event: "\n\n" closes both whether the body stopped mid-line, after a lone CR
      // (the parser holds it to see if LF follows) or after a line without its blank line.
      const rest = text.decode();
      parser.feed(`${rest}\n\n`);
      lineBytes = 0;
      return take();
    },
  };
}
