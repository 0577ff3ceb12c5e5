/**
 * Reads what svir streamed to a client (the whole body text) the way a strict client would:
 * frames split on blank lines, `data:` payloads parsed, tool calls assembled. It also notes
 * every frame that breaks the clean dialect, so the suites can assert "one error event and no
 * [DONE]" or "byte for byte" without re-implementing SSE each time.
 */
import { z } from 'zod';

/** The one error shape, exactly: no other key at either level. */
const errorEvent = z.strictObject({
  error: z.strictObject({
    message: z.string().min(1),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});

const toolPiece = z.looseObject({
  index: z.number().int().nonnegative(),
  id: z.string().optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});

const chunk = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      delta: z.looseObject({
        content: z.string().optional(),
        reasoning_content: z.string().optional(),
        tool_calls: z.array(toolPiece).optional(),
      }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: z.unknown().optional(),
});

export type CleanErrorEvent = z.infer<typeof errorEvent>['error'];

export interface AssembledToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface CleanStreamSummary {
  /** Parsed chunk objects, in order. */
  chunks: z.infer<typeof chunk>[];
  /** Error events (`data: {"error":...}`), in order. */
  errors: CleanErrorEvent[];
  /** Whether `data: [DONE]` came, and whether it was the last frame. */
  done: boolean;
  doneLast: boolean;
  /** Frames after an error event (there must be none). */
  framesAfterError: number;
  /** `: ...` comment frames (svir's keepalives). */
  comments: number;
  /** Frames that are neither a chunk, an error, [DONE] nor a comment. */
  malformed: string[];
  content: string;
  reasoning: string;
  toolCalls: AssembledToolCall[];
  finishReasons: string[];
  /** The body ended without the blank line that closes a frame. */
  unterminated: boolean;
}

export function parseCleanStream(text: string): CleanStreamSummary {
  const summary: CleanStreamSummary = {
    chunks: [],
    errors: [],
    done: false,
    doneLast: false,
    framesAfterError: 0,
    comments: 0,
    malformed: [],
    content: '',
    reasoning: '',
    toolCalls: [],
    finishReasons: [],
    unterminated: text.length > 0 && !text.endsWith('\n\n'),
  };
  const frames = text.split('\n\n').filter((frame) => frame.length > 0);
  const calls = new Map<number, AssembledToolCall>();
  frames.forEach((frame, position) => {
    if (summary.errors.length > 0) summary.framesAfterError += 1;
    if (frame.startsWith(':')) {
      summary.comments += 1;
      return;
    }
    if (!frame.startsWith('data: ') || frame.includes('\n')) {
      summary.malformed.push(frame.slice(0, 200));
      return;
    }
    const payload = frame.slice('data: '.length);
    if (payload === '[DONE]') {
      summary.done = true;
      summary.doneLast = position === frames.length - 1;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      summary.malformed.push(frame.slice(0, 200));
      return;
    }
    const asError = errorEvent.safeParse(json);
    if (asError.success) {
      summary.errors.push(asError.data.error);
      return;
    }
    const asChunk = chunk.safeParse(json);
    if (!asChunk.success) {
      summary.malformed.push(frame.slice(0, 200));
      return;
    }
    summary.chunks.push(asChunk.data);
    for (const choice of asChunk.data.choices) {
      if (choice.delta.content !== undefined) summary.content += choice.delta.content;
      if (choice.delta.reasoning_content !== undefined) summary.reasoning += choice.delta.reasoning_content;
      for (const piece of choice.delta.tool_calls ?? []) {
        const call = calls.get(piece.index) ?? { id: '', name: '', arguments: '' };
        if (piece.id !== undefined) call.id = piece.id;
        if (piece.function?.name !== undefined) call.name += piece.function.name;
        if (piece.function?.arguments !== undefined) call.arguments += piece.function.arguments;
        calls.set(piece.index, call);
      }
      if (choice.finish_reason !== null) summary.finishReasons.push(choice.finish_reason);
    }
  });
  summary.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  return summary;
}

/** The one error shape of a non-stream error answer, or undefined when the body is not it. */
export function readErrorBody(text: string): CleanErrorEvent | undefined {
  try {
    const parsed = errorEvent.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}
