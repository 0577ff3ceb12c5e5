/**
 * Clean chunks → the bytes of the clean stream (docs/contract.md#clean-dialect): `data: <json>\n\n`
 * events only, LF line ends, one `data:` line per event (JSON escapes every line break inside a
 * string), no `event:` field, and comments of svir's own.
 */
import type { OpenAIErrorBody } from '../errors.js';
import type { CleanChunk, CleanDelta } from './clean-chunk.js';
import { toTextCompletionChunk } from './to-text-completion-chunk.js';

/**
 * `id`, `object`, `created` and `model` are the same on every chunk of a stream, so their JSON is
 * made once per stream (the envelope, kept by the stream's encoder), and only the choice is
 * serialized per chunk.
 */
interface Envelope {
  id: string;
  created: number;
  model: string;
  text: string;
  /**
   * The common chunk's text up to its one string (`...,"choices":[{"index":0,"delta":{"content":`),
   * for the key last written: the delta key is the same over a stream's run of text chunks.
   */
  key: string | undefined;
  keyText: string;
}

function fits(envelope: Envelope | undefined, chunk: CleanChunk): envelope is Envelope {
  return envelope !== undefined && envelope.id === chunk.id && envelope.created === chunk.created && envelope.model === chunk.model;
}

function envelopeOf(chunk: CleanChunk): Envelope {
  const text = `data: {"id":${JSON.stringify(chunk.id)},"object":"chat.completion.chunk","created":${JSON.stringify(chunk.created)},"model":${JSON.stringify(chunk.model)},"choices":`;
  return { id: chunk.id, created: chunk.created, model: chunk.model, text, key: undefined, keyText: '' };
}

/** The key of a delta that holds one string and nothing else; undefined for any other delta. */
function onlyStringKey(delta: CleanDelta): string | undefined {
  let only: string | undefined;
  for (const key in delta) {
    if (only !== undefined) return undefined;
    only = key;
  }
  return only !== undefined && typeof delta[only] === 'string' ? only : undefined;
}

/** What closes the common chunk after its string: the delta, the choice (no finish), the list, the event. */
const TEXT_CHUNK_END = '},"finish_reason":null}]}\n\n';

/** Encodes the chunks of one stream, in order: the text is byte for byte JSON.stringify(chunk)'s. */
export type ChunkEncoder = (chunk: CleanChunk) => string;

/**
 * The encoder of one stream: it keeps that stream's envelope (a chunk of another identity gets
 * one of its own), so nothing is shared between streams. Make one per stream.
 */
export function createChunkEncoder(): ChunkEncoder {
  let last: Envelope | undefined;
  return (chunk) => {
    const choice = chunk.choices[0];
    if (choice === undefined || chunk.choices.length !== 1 || chunk.usage !== undefined || chunk.object !== 'chat.completion.chunk') {
      return `data: ${JSON.stringify(chunk)}\n\n`;
    }
    const envelope = fits(last, chunk) ? last : (last = envelopeOf(chunk));
    const delta = choice.delta;
    const key = onlyStringKey(delta);
    // The common chunk (one text, no logprobs, no finish): the bytes around its string are the
    // same from chunk to chunk, kept whole, so only the string is new text. The same bytes as
    // JSON.stringify gives, with two concatenations instead of a dozen.
    if (key !== undefined && choice.finish_reason === null && !('logprobs' in choice)) {
      if (envelope.key !== key) {
        envelope.key = key;
        envelope.keyText = `${envelope.text}[{"index":0,"delta":{${JSON.stringify(key)}:`;
      }
      return envelope.keyText + JSON.stringify(delta[key]) + TEXT_CHUNK_END;
    }
    const finish = choice.finish_reason === null ? 'null' : JSON.stringify(choice.finish_reason);
    const logprobs = 'logprobs' in choice ? `,"logprobs":${JSON.stringify(choice.logprobs)}` : '';
    const deltaText = key === undefined ? JSON.stringify(delta) : `{${JSON.stringify(key)}:${JSON.stringify(delta[key])}}`;
    return `${envelope.text}[{"index":0,"delta":${deltaText}${logprobs},"finish_reason":${finish}}]}\n\n`;
  };
}

/** The legacy Completions event for a clean chunk ('' when the chunk says nothing there). */
export function encodeTextCompletionChunk(chunk: CleanChunk): string {
  const text = toTextCompletionChunk(chunk);
  return text === undefined ? '' : `data: ${JSON.stringify(text)}\n\n`;
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
 * start a field, so breaks become spaces. svir's own is `keepalive`, never `ping`, which one
 * client takes for the end of the stream.
 */
export function encodeComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}
