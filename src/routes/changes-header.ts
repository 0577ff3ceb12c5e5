/**
 * `x-svir-changes` (docs/contract.md#clean-dialect: nothing changed silently): the value made from svir's phrases,
 * and what the answer adds to them once it is read (a call dropped under
 * `parallel_tool_calls: false`): the header of an answer sent in one piece, a comment before
 * the end of a stream, whose headers are gone by then, and the request's log line either way.
 */
import type { FastifyReply } from 'fastify';
import { encodeComment } from '../normalize/sse-encoder.js';
import type { RequestSummary } from '../logging/request-summary.js';

/** `x-svir-changes`: what svir changed, as a comma-separated list of header-safe phrases. */
export function changesHeader(changes: readonly string[]): string {
  return changes.map((c) => headerSafe(c.replace(/[\r\n,]+/g, ' ').trim())).join(', ');
}

/**
 * A phrase may quote the client (a named tool_choice's function name): printable ASCII stays,
 * anything else is percent-encoded as UTF-8 bytes. Node refuses a header value with a control
 * character or a character above U+00FF, and a tool named in Japanese made that a 500, or a
 * stream that never answered.
 */
function headerSafe(phrase: string): string {
  let out = '';
  for (const char of phrase) {
    if (char !== '%' && char >= ' ' && char <= '~') out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The answer's notes, added to the request's changes (its log line) and, while it can be, to the header. */
export function addAnswerChanges(reply: FastifyReply, summary: RequestSummary, notes: readonly string[]): void {
  const changes = [...(summary.changes ?? []), ...notes];
  summary.changes = changes;
  if (!reply.raw.headersSent) reply.header('x-svir-changes', changesHeader(changes));
}

/** The notes as a stream carries them, one comment each, before its end: clients skip comments. */
export function encodeChangeComments(notes: readonly string[]): string {
  let text = '';
  for (const note of notes) text += encodeComment(`x-svir-changes: ${note}`);
  return text;
}
