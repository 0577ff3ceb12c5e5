/**
 * What a stream's event reader remembers from one event to the next: the template of the
 * stream's common text chunk (text-chunk-template.ts, read-openai-event.ts) and how it fared.
 * Made empty with the stream's context (createStreamMemo), one per stream and never shared with
 * another: a memo only, an event reads the same with it or without it.
 */
import type { Part } from './parts.js';
import type { TextChunkTemplate } from './text-chunk-template.js';

/** The kinds of text a template's string can be. */
export type TemplateTextKind = 'content' | 'reasoning' | 'refusal';

/** The chunk's identity part, which a template keeps. */
export type MetaPart = Part & { kind: 'meta' };

export interface StreamMemo {
  /** The stream's current template, once a common text chunk was read. */
  textTemplate: TextChunkTemplate<TemplateTextKind, MetaPart> | undefined;
  /** Templates made for this stream, and chunks read through them. */
  templatesMade: number;
  templateHits: number;
}

export function createStreamMemo(): StreamMemo {
  return { textTemplate: undefined, templatesMade: 0, templateHits: 0 };
}
