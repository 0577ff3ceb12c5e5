/**
 * The per-stream normalizer: neutral parts (what an adapter read out of each upstream event) →
 * clean chunks, by every rule of docs/contract.md#clean-dialect. Pure and stateful: one instance
 * per stream, ids and clock injected. It runs on every chunk, so it is a class with the sinks of
 * its helpers as methods (no closures per chunk) and merges text of one kind within one event.
 */
import type { StreamContext } from './stream-context.js';
import { SvirError } from '../errors.js';
import type { CleanChunk, CleanDelta, CleanToolCallDelta, FinishReason } from './clean-chunk.js';
import { mapFinishReason } from './map-finish-reason.js';
import type { Part, Usage } from './parts.js';
import { readLogprobLists } from './read-logprob-lists.js';
import { ThinkTagSplitter, type ThinkTagSink } from './think-tag-splitter.js';
import { ToolCallAssembler, wholeToolNames, type ToolCallSink } from './tool-call-assembler.js';

export interface NormalizerDeps {
  /** A fresh id: `completion` for the stream when the upstream gave none, `call` for a tool call. */
  makeId(kind: 'completion' | 'call'): string;
  /** Milliseconds since the epoch (like Date.now); `created` is this in seconds. */
  now(): number;
}

export interface NormalizerStep {
  /** To send now, in order. */
  chunks: CleanChunk[];
  /** The stream failed: send this (HTTP error if nothing was sent yet, else an error event). */
  error?: SvirError;
  /** The stream is complete: `chunks` end with the finish (and usage) chunk; send `[DONE]`. */
  done: boolean;
  /**
   * What svir changed in the answer (a call dropped under `parallel_tool_calls: false`), one
   * phrase each for `x-svir-changes`: only on the step that completes the stream, since a
   * stream's headers are gone by then (it carries them as a comment before its end).
   */
  notes?: string[];
}

export interface Normalizer {
  /** Parts of one upstream event. */
  push(parts: readonly Part[]): NormalizerStep;
  /**
   * `push`, for the events of one upstream read taken in a row: their chunks gather in
   * `into.chunks` (made at the first) instead of a step of each event's own. undefined while the
   * stream goes on; the step that ends it (`done`, or the error) otherwise, whose chunks are the
   * gathered ones (the failed event's own taken off again, as `push` drops them).
   */
  pushTo(parts: readonly Part[], into: ChunkGather): NormalizerStep | undefined;
  /** The upstream body ended. Without a `done` part first, that is an error: the stream was cut. */
  end(): NormalizerStep;
}

/**
 * The chunks of several events gathered in one list, made with the first chunk as a one-element
 * literal: most reads make one chunk, and an empty array grows to 17 slots on its first push.
 */
export interface ChunkGather {
  chunks: CleanChunk[] | undefined;
}

export function createNormalizer(ctx: StreamContext, deps: NormalizerDeps): Normalizer {
  return new StreamNormalizer(ctx, deps);
}

const enum TextKind {
  None,
  Answer,
  Reasoning,
  Refusal,
}

const enum State {
  Open,
  Done,
  Failed,
}

class StreamNormalizer implements ThinkTagSink, ToolCallSink {
  private readonly ctx: StreamContext;
  private readonly deps: NormalizerDeps;
  /** Until the answer began: then every content piece is answer text and it is dropped. */
  private splitter: ThinkTagSplitter | undefined;
  private readonly tools: ToolCallAssembler;

  private state = State.Open;
  private id: string | undefined;
  private created: number | undefined;
  /** Whether a chunk went out (the first carries `role`, and id and created are fixed by then). */
  private started = false;

  /** Text of one kind gathered within the current event, sent as one delta. */
  private textKind = TextKind.None;
  private text = '';
  private logprobs: unknown = undefined;

  /**
   * Reasoning came (or a think block closed, empty or not), and no answer text, call or refusal
   * yet: whitespace here only separates the
   * two (LM Studio's and mlx-lm's `"\n\n"`, docs/contract.md#clean-dialect) and is dropped; the answer starts at its
   * first other character.
   */
  private separating = false;

  /** Calls not sent under `parallel_tool_calls: false` (ctx.singleToolCall), by name. */
  private dropped: string[] | undefined;

  /** A finish that ended the answer early: `content_filter` outranks `length`. */
  private cut: 'length' | 'content_filter' | undefined;
  private usage: Usage | undefined;

  /** Where the chunks of the event being read go: `own` for `push`, the caller's for `pushTo`. */
  private into: ChunkGather;
  private readonly own: ChunkGather = { chunks: undefined };
  /** How many chunks `into` held before this event (a failure takes the event's own off again). */
  private mark = 0;

  constructor(ctx: StreamContext, deps: NormalizerDeps) {
    this.ctx = ctx;
    this.deps = deps;
    const tags = thinkTagMode(ctx);
    this.splitter = tags === undefined ? undefined : new ThinkTagSplitter(tags, ctx.reasoningMarkers);
    this.tools = new ToolCallAssembler(wholeToolNames(ctx.toolNames), () => deps.makeId('call'));
    this.into = this.own;
  }

  push(parts: readonly Part[]): NormalizerStep {
    if (this.state !== State.Open) return { chunks: [], done: this.state === State.Done };
    const own = this.own;
    this.into = own;
    this.mark = 0;
    const step = this.read(parts) ?? { chunks: own.chunks ?? [], done: false };
    // The step's array is the caller's now: nothing later may add to it or cut it.
    own.chunks = undefined;
    return step;
  }

  pushTo(parts: readonly Part[], into: ChunkGather): NormalizerStep | undefined {
    if (this.state !== State.Open) return { chunks: into.chunks ?? [], done: this.state === State.Done };
    this.into = into;
    this.mark = into.chunks?.length ?? 0;
    const end = this.read(parts);
    // The caller's list is not kept past its event.
    this.into = this.own;
    return end;
  }

  /** The parts of one event into `out`; the last step when they end the stream, else undefined. */
  private read(parts: readonly Part[]): NormalizerStep | undefined {
    for (const part of parts) {
      switch (part.kind) {
        case 'meta':
          if (!this.started) {
            if (this.id === undefined && part.id !== undefined && part.id.length > 0) this.id = part.id;
            if (this.created === undefined && part.created !== undefined && part.created > 0) this.created = part.created;
          }
          break;
        case 'content':
          if (part.text.length === 0) break;
          if (this.splitter === undefined) this.onAnswerText(part.text);
          else {
            this.splitter.push(part.text, this);
            // Tags count only at the start of the answer: once it began, the splitter is done.
            if (this.splitter.answering) this.splitter = undefined;
          }
          break;
        case 'reasoning':
          this.onReasoningText(part.text);
          break;
        case 'refusal':
          if (part.text.length > 0) this.separating = false;
          this.addText(TextKind.Refusal, part.text);
          break;
        case 'tool':
          this.tools.add(part);
          break;
        case 'logprobs':
          if (this.ctx.logprobs && part.value !== null && part.value !== undefined) {
            this.logprobs = this.logprobs === undefined ? part.value : mergeLogprobs(this.logprobs, part.value);
          }
          break;
        case 'finish': {
          const reason = mapFinishReason(part.reason);
          if (reason === 'cut') return this.fail(this.cutError(part.reason));
          this.onFinish(reason);
          break;
        }
        case 'filtered':
          this.cut = 'content_filter';
          break;
        case 'usage':
          this.usage = part.usage;
          break;
        case 'error':
          return this.fail(part.error);
        case 'done':
          return this.complete();
      }
    }
    this.flushText();
    this.tools.drain(this);
    return undefined;
  }

  end(): NormalizerStep {
    if (this.state !== State.Open) return { chunks: [], done: this.state === State.Done };
    return this.fail(
      new SvirError('upstream_error', {
        source: 'upstream',
        backend: this.ctx.backend,
        message: `The backend "${this.ctx.backend}" ended the stream before it was complete (no [DONE]); the answer is partial.`,
      }),
    );
  }

  /** A finish reason that means the server gave up on the answer (vLLM's `abort`, `error`). */
  private cutError(reason: string): SvirError {
    // The server's word, bounded and printable: it goes into a message.
    const said = reason.replace(/[^\x20-\x7e]+/g, ' ').trim().slice(0, 64);
    return new SvirError('upstream_error', {
      source: 'upstream',
      backend: this.ctx.backend,
      message: `The backend "${this.ctx.backend}" ended the answer with finish reason "${said}": the answer was cut and is partial.`,
    });
  }

  onAnswerText(text: string): void {
    if (this.separating) {
      const start = leadingSpace(text);
      if (start === text.length) return;
      this.separating = false;
      this.addText(TextKind.Answer, start === 0 ? text : text.slice(start));
      return;
    }
    this.addText(TextKind.Answer, text);
  }

  onReasoningText(text: string): void {
    if (text.length === 0) return;
    this.separating = true;
    this.addText(TextKind.Reasoning, text);
  }

  onReasoningEnd(): void {
    // An empty think block ends reasoning too: the "\n" GLM-4.6 writes after the `<think></think>`
    // of a turn with reasoning off is no answer text (docs/llamacpp-real.md).
    this.separating = true;
  }

  onToolCall(piece: CleanToolCallDelta): void {
    // Calls go out one after another, numbered from 0: under parallel_tool_calls false the first is kept.
    if (piece.index > 0 && this.ctx.singleToolCall === true) {
      if (piece.id !== undefined) (this.dropped ??= []).push(piece.function.name ?? '');
      return;
    }
    this.separating = false;
    this.flushText();
    this.emit(this.delta('tool_calls', [piece]));
  }

  private addText(kind: TextKind, text: string): void {
    if (text.length === 0) return;
    if (this.textKind === kind) {
      this.text += text;
      return;
    }
    this.flushText();
    this.textKind = kind;
    this.text = text;
  }

  private flushText(): void {
    const kind = this.textKind;
    if (kind === TextKind.None) return;
    const text = this.text;
    this.textKind = TextKind.None;
    this.text = '';
    // The common delta as a literal: one shape, no key added to an empty object.
    if (kind === TextKind.Answer) this.emit(this.started ? { content: text } : { role: 'assistant', content: text });
    else if (kind === TextKind.Reasoning) this.emit(this.delta(this.ctx.reasoningField, text));
    else this.emit(this.delta('refusal', text));
  }

  /** A one-payload delta; the stream's first also says who speaks. */
  private delta(key: string, value: unknown): CleanDelta {
    const delta: CleanDelta = this.started ? {} : { role: 'assistant' };
    delta[key] = value;
    return delta;
  }

  private emit(delta: CleanDelta, finishReason: FinishReason | null = null): void {
    if (!this.started) this.begin();
    const logprobs = this.logprobs;
    this.logprobs = undefined;
    this.add({
      id: this.id ?? '',
      object: 'chat.completion.chunk',
      created: this.created ?? 0,
      model: this.ctx.model,
      choices: [
        logprobs === undefined
          ? { index: 0, delta, finish_reason: finishReason }
          : { index: 0, delta, logprobs, finish_reason: finishReason },
      ],
    });
  }

  private add(chunk: CleanChunk): void {
    const into = this.into;
    if (into.chunks === undefined) into.chunks = [chunk];
    else into.chunks.push(chunk);
  }

  /** First chunk: id and created are fixed from here on, the upstream's or svir's own. */
  private begin(): void {
    this.started = true;
    this.id ??= this.deps.makeId('completion');
    this.created ??= Math.floor(this.deps.now() / 1000);
  }

  private onFinish(reason: FinishReason): void {
    if (reason === 'content_filter') this.cut = 'content_filter';
    else if (reason === 'length' && this.cut === undefined) this.cut = 'length';
  }

  /** `[DONE]`: what was held goes out, then the one finish chunk, then usage if asked. */
  private complete(): NormalizerStep {
    this.state = State.Done;
    this.splitter?.end(this);
    this.flushText();
    this.tools.finish(this);
    // An answer with nothing in it still opens with the role, in its own chunk.
    if (!this.started) this.emit({ role: 'assistant' });
    this.emit({}, this.cut ?? (this.tools.sentCount > 0 ? 'tool_calls' : 'stop'));
    if (this.ctx.includeUsage && this.usage !== undefined) {
      this.add({
        id: this.id ?? '',
        object: 'chat.completion.chunk',
        created: this.created ?? 0,
        model: this.ctx.model,
        choices: [],
        usage: this.usage,
      });
    }
    const chunks = this.into.chunks ?? [];
    if (this.dropped === undefined) return { chunks, done: true };
    return { chunks, done: true, notes: this.dropped.map((name) => `tool call ${name} not sent (parallel_tool_calls is false)`) };
  }

  /** The stream failed: what this event had made so far is not sent. */
  private fail(error: SvirError): NormalizerStep {
    this.state = State.Failed;
    const chunks = this.into.chunks;
    if (chunks === undefined) return { chunks: [], error, done: false };
    chunks.length = this.mark;
    return { chunks, error, done: false };
  }
}

/**
 * How content is read for `<think>` tags in this stream (docs/contract.md#clean-dialect): never
 * under structured output (the answer is JSON from its first token; a `<think>` inside a string is
 * data); `open` only when the request left reasoning on, since a template that opens the tag does
 * not when reasoning is off, and the server then writes no `</think>`; undefined: content is text.
 */
function thinkTagMode(ctx: StreamContext): 'auto' | 'open' | undefined {
  if (ctx.structuredOutput || ctx.reasoningTags === 'off') return undefined;
  if (ctx.reasoningTags === 'open' && ctx.reasoningOff) return 'auto';
  return ctx.reasoningTags;
}

/** How many whitespace characters (space, tab, CR, LF) `text` starts with. */
function leadingSpace(text: string): number {
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    at += 1;
  }
  return at;
}

/**
 * Logprobs of an event whose text went out later (held by a marker or a tool call) join the
 * next chunk's. OpenAI's shape concatenates; another shape cannot be joined and the later wins.
 */
function mergeLogprobs(earlier: unknown, later: unknown): unknown {
  const a = readLogprobLists(earlier);
  const b = readLogprobLists(later);
  if (a === undefined || b === undefined) return later;
  return { content: joinLists(a.content, b.content), refusal: joinLists(a.refusal, b.refusal) };
}

function joinLists(a: unknown[] | null, b: unknown[] | null): unknown[] | null {
  if (a === null) return b;
  if (b === null) return a;
  return [...a, ...b];
}
