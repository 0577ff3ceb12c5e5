/**
 * Clean chunks → the bytes of the clean stream (DESIGN.md §2): `data: <json>\n\n` events only,
 * LF line ends, one `data:` line per event (JSON.stringify escapes every line break inside a
 * string), no `event:` field, and comments of svir's own.
 */
import type { OpenAIErrorBody } from '../errors.js';
import type { CleanChunk } from './clean-chunk.js';

export function encodeChunk(chunk: CleanChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

const DONE = 'data: [DONE]\n\n';

export function encodeDone(): string {
  return DONE;
}

/** The one error event a stream that failed after its headers ends with; no `[DONE]` follows. */
export function encodeErrorEvent(body: OpenAIErrorBody): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}

/**
 * A comment (`: keepalive`): clients skip it. A line break inside would end the comment and
 * start a field, so breaks become spaces. Not `ping`, which one client reads as the end.
 */
export function encodeComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}
