/**
 * The generic reader of OpenAI-shaped stream events (docs/wire-protocol.md#response-stream): one
 * SSE event → neutral parts. Every adapter reads its stream with it; azure and lmstudio add their
 * server's quirks around it. zod reads only the fields svir uses; unknown keys and keys set to null
 * are passed over.
 */
import { z } from 'zod';
import type { StreamContext } from './stream-context.js';
import { pushMeta } from './push-meta.js';
import { MAX_LOGPROBS_DEPTH } from './chunk-envelope.js';
import { readChunkEnvelope } from './read-chunk-envelope.js';
import { readEventJson } from './read-event-json.js';
import { isErrorChunk, unreadablePart } from './stream-error-part.js';
import { nestsDeeperThan } from './nests-deeper-than.js';
import type { Part, SseEvent } from './parts.js';
import { readUsage } from './read-usage.js';
import type { MetaPart, TemplateTextKind } from './stream-memo.js';
import { fillTextTemplate, makeTextTemplate } from './text-chunk-template.js';

const toolPieceSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const choiceSchema = z.object({
  delta: z
    .object({
      content: z.string().nullish(),
      reasoning_content: z.string().nullish(),
      reasoning: z.string().nullish(),
      refusal: z.string().nullish(),
      tool_calls: z.array(toolPieceSchema).nullish(),
    })
    .nullish(),
  logprobs: z.unknown().optional(),
  finish_reason: z.string().nullish(),
});

/** Only the index, to pick the first choice before reading it whole. */
const choiceIndexSchema = z.object({ index: z.unknown().optional() });

export function readOpenAIEvent(event: SseEvent, ctx: StreamContext): Part[] {
  // The common chunk, read through the stream's template (plain `message` events only).
  if (event.event === undefined) {
    const templated = readTemplated(event.data, ctx);
    if (templated !== undefined) return templated;
  }
  const chunk = readEventJson(event, ctx);
  if (Array.isArray(chunk)) return chunk;
  const { data, json } = chunk;
  const common = readCommonChunk(json);
  if (common !== undefined) {
    const parts: Part[] = [];
    pushMeta(parts, common.id, common.created);
    if (common.choice !== undefined) {
      const { delta, logprobs, finish_reason } = common.choice;
      if (delta !== undefined && delta !== null) {
        pushDeltaTexts(parts, delta);
        if (delta.tool_calls !== undefined) pushToolParts(parts, delta.tool_calls);
      }
      const failed = pushChoiceEnd(parts, logprobs, finish_reason, ctx);
      if (failed !== undefined) return [failed];
    }
    const usage = readUsage(common.usage);
    if (usage !== undefined) parts.push({ kind: 'usage', usage });
    rememberTemplate(data, common, parts, ctx);
    return parts;
  }

  const envelope = readChunkEnvelope(json, data, ctx);
  if (Array.isArray(envelope)) return envelope;
  const { id, created, choices, usage } = envelope;

  const parts: Part[] = [];
  pushMeta(parts, id, created);

  const raw = choices === undefined || choices === null ? undefined : firstChoice(choices);
  if (raw !== undefined) {
    const choice = choiceSchema.safeParse(raw);
    if (!choice.success) return [unreadablePart(ctx, 'a choice of an unexpected shape')];
    const { delta, logprobs, finish_reason } = choice.data;
    if (delta !== undefined && delta !== null) {
      pushDeltaTexts(parts, delta);
      if (delta.tool_calls) pushToolParts(parts, delta.tool_calls);
    }
    const failed = pushChoiceEnd(parts, logprobs, finish_reason, ctx);
    if (failed !== undefined) return [failed];
  }

  const read = readUsage(usage);
  if (read !== undefined) parts.push({ kind: 'usage', usage: read });
  return parts;
}

interface DeltaTexts {
  content?: string | null | undefined;
  reasoning_content?: string | null | undefined;
  reasoning?: string | null | undefined;
  refusal?: string | null | undefined;
}

type ToolPiece = z.infer<typeof toolPieceSchema>;

interface CommonDelta extends DeltaTexts {
  /** Read only when present (an empty list too): such a chunk is never a template's. */
  tool_calls?: ToolPiece[];
}

interface CommonChoice {
  delta: CommonDelta | null | undefined;
  logprobs: unknown;
  finish_reason: string | null | undefined;
}

/** The fields svir reads from a chunk of the common shape (readCommonChunk). */
interface CommonChunk {
  id: string | null | undefined;
  created: number | null | undefined;
  choice: CommonChoice | undefined;
  usage: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOptionalString(value: unknown): value is string | null | undefined {
  return value === undefined || value === null || typeof value === 'string';
}

/**
 * The chunk nearly every server sends nearly every time (identity, at most one choice at index
 * 0, a delta of text fields or tool-call pieces, no error of either form), read field by field
 * with a type check before each use: the same judgement as the zod schemas above, at a fraction
 * of their cost on the hottest line of a stream. Anything else (several choices, a field of an
 * unexpected type, an error) is undefined here, and zod reads it and says what is wrong.
 */
function readCommonChunk(json: unknown): CommonChunk | undefined {
  if (!isRecord(json)) return undefined;
  const { id, created, choices, usage, error } = json;
  if (isErrorChunk(error, json.object)) return undefined;
  if (!isOptionalString(id)) return undefined;
  if (created !== undefined && created !== null && typeof created !== 'number') return undefined;
  if (choices === undefined || choices === null || (Array.isArray(choices) && choices.length === 0)) {
    return { id, created, choice: undefined, usage };
  }
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const raw: unknown = choices[0];
  if (!isRecord(raw)) return undefined;
  const { index, delta, logprobs, finish_reason } = raw;
  if (index !== 0 && index !== undefined && index !== null) return undefined;
  if (!isOptionalString(finish_reason)) return undefined;
  if (delta === undefined || delta === null) return { id, created, choice: { delta, logprobs, finish_reason }, usage };
  if (!isRecord(delta)) return undefined;
  const { content, reasoning_content, reasoning, refusal, tool_calls } = delta;
  if (!isOptionalString(content) || !isOptionalString(reasoning_content)) return undefined;
  if (!isOptionalString(reasoning) || !isOptionalString(refusal)) return undefined;
  const read: CommonDelta = { content, reasoning_content, reasoning, refusal };
  if (tool_calls !== undefined && tool_calls !== null) {
    const pieces = readToolPieces(tool_calls);
    if (pieces === undefined) return undefined;
    read.tool_calls = pieces;
  }
  return { id, created, choice: { delta: read, logprobs, finish_reason }, usage };
}

/** `delta.tool_calls` as toolPieceSchema reads it (an array of such pieces), or undefined. */
function readToolPieces(value: unknown): ToolPiece[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const pieces: ToolPiece[] = [];
  for (const item of value) {
    if (!isRecord(item)) return undefined;
    const { index, id, function: fn } = item;
    // z.number().int().nonnegative(): a safe integer, 0 or more.
    if (index !== undefined && index !== null && !(typeof index === 'number' && Number.isSafeInteger(index) && index >= 0)) return undefined;
    if (!isOptionalString(id)) return undefined;
    if (fn === undefined || fn === null) {
      pieces.push({ index, id, function: fn });
      continue;
    }
    if (!isRecord(fn)) return undefined;
    const { name, arguments: args } = fn;
    if (!isOptionalString(name) || !isOptionalString(args)) return undefined;
    pieces.push({ index, id, function: { name, arguments: args } });
  }
  return pieces;
}

type TextKey = 'content' | 'reasoning_content' | 'reasoning' | 'refusal';
type TextKind = TemplateTextKind;

/** The key of the one text a common chunk carries and nothing else beside its identity; else undefined. */
function onlyTextKey(common: CommonChunk): TextKey | undefined {
  const choice = common.choice;
  if (choice === undefined || choice.delta === undefined || choice.delta === null) return undefined;
  if (choice.delta.tool_calls !== undefined) return undefined;
  if (choice.logprobs !== undefined && choice.logprobs !== null) return undefined;
  if (choice.finish_reason || readUsage(common.usage) !== undefined) return undefined;
  const { content, reasoning_content, reasoning, refusal } = choice.delta;
  let key: TextKey | undefined;
  // Every other text key empty or absent: each is then the same in every chunk that fits.
  for (const [name, value] of [
    ['content', content],
    ['reasoning_content', reasoning_content],
    ['reasoning', reasoning],
    ['refusal', refusal],
  ] as const) {
    if (!value) continue;
    if (key !== undefined) return undefined;
    key = name;
  }
  return key;
}

function textKind(key: TextKey): TextKind {
  return key === 'content' ? 'content' : key === 'refusal' ? 'refusal' : 'reasoning';
}

/** A stream whose chunks do not repeat (a per-chunk nonce) stops making templates after these. */
const FRUITLESS_TEMPLATES = 4;
const HITS_PER_TEMPLATE = 8;

/** The common chunk read through the stream's template (its context's memo), if one fits. */
function readTemplated(data: string, ctx: StreamContext): Part[] | undefined {
  const memo = ctx.memo;
  const template = memo.textTemplate;
  if (template === undefined) return undefined;
  const text = fillTextTemplate(template, data);
  if (text === undefined) return undefined;
  memo.templateHits += 1;
  // Array literals of their final length: an empty or short array grows to 17 slots on a push.
  const meta = template.meta;
  if (text.length === 0) return meta === undefined ? [] : [meta];
  const part: Part = { kind: template.kind, text };
  return meta === undefined ? [part] : [meta, part];
}

function rememberTemplate(data: string, common: CommonChunk, parts: readonly Part[], ctx: StreamContext): void {
  const key = onlyTextKey(common);
  if (key === undefined) return;
  const memo = ctx.memo;
  if (memo.templatesMade >= FRUITLESS_TEMPLATES && memo.templateHits < memo.templatesMade * HITS_PER_TEMPLATE) return;
  const text = parts.find((part) => part.kind === textKind(key));
  const meta = parts.find((part): part is MetaPart => part.kind === 'meta');
  if (text === undefined || !('text' in text)) return;
  memo.templatesMade += 1;
  memo.textTemplate = makeTextTemplate(data, key, text.text, textKind(key), meta, (probe) => {
    let json: unknown;
    try {
      json = JSON.parse(probe);
    } catch {
      return undefined;
    }
    const read = readCommonChunk(json);
    if (read === undefined || onlyTextKey(read) !== key) return undefined;
    const value = read.choice?.delta?.[key];
    return typeof value === 'string' ? value : undefined;
  });
}

function pushDeltaTexts(parts: Part[], delta: DeltaTexts): void {
  const { reasoning_content, reasoning } = delta;
  // mlx-vlm sends every piece of reasoning twice, under both keys: one text, not two.
  if (reasoning_content) parts.push({ kind: 'reasoning', text: reasoning_content });
  if (reasoning && reasoning !== reasoning_content) parts.push({ kind: 'reasoning', text: reasoning });
  if (delta.content) parts.push({ kind: 'content', text: delta.content });
  if (delta.refusal) parts.push({ kind: 'refusal', text: delta.refusal });
}

/** Logprobs and the finish reason; returns the error part when the logprobs cannot be encoded. */
function pushChoiceEnd(parts: Part[], logprobs: unknown, finishReason: string | null | undefined, ctx: StreamContext): Part | undefined {
  if (logprobs !== undefined && logprobs !== null) {
    // Checked only when they will be encoded (the client asked for them).
    if (ctx.logprobs && nestsDeeperThan(logprobs, MAX_LOGPROBS_DEPTH)) return unreadablePart(ctx, 'logprobs nested too deeply');
    parts.push({ kind: 'logprobs', value: logprobs });
  }
  if (finishReason) parts.push({ kind: 'finish', reason: finishReason });
  return undefined;
}

/** The choice with index 0 (or none given); other choices are not part of an `n: 1` answer. */
function firstChoice(choices: unknown[]): unknown {
  for (const choice of choices) {
    const read = choiceIndexSchema.safeParse(choice);
    if (!read.success) continue;
    const index = read.data.index;
    if (index === 0 || index === undefined || index === null) return choice;
  }
  return undefined;
}

function pushToolParts(parts: Part[], pieces: readonly ToolPiece[]): void {
  for (let position = 0; position < pieces.length; position++) {
    const piece = pieces[position];
    if (piece !== undefined) parts.push(toolPart(piece, position));
  }
}

function toolPart(piece: ToolPiece, position: number): Part {
  // Servers that omit the index put several calls in one delta, each at its place: the place is
  // the index. One call streamed in pieces without an index is at place 0 in every delta.
  const part: Part & { kind: 'tool' } = { kind: 'tool', index: piece.index ?? position };
  if (piece.id) part.id = piece.id;
  const fn = piece.function;
  if (fn) {
    if (fn.name) part.name = fn.name;
    if (typeof fn.arguments === 'string') part.arguments = fn.arguments;
  }
  return part;
}

