/**
 * Generation speed as docs/wire-protocol.md#speed defines it: tokens per second from the first
 * visible token to the last, so that the wait for the first token (prompt processing, queueing)
 * does not drag the rate down. Pure: the server feeds each clean chunk with the time it was
 * produced.
 *
 * A token is one clean chunk that carries something visible: answer text, reasoning, a piece of
 * a tool call, or refusal text. The role-only first chunk, the empty finish chunk and the usage
 * chunk carry nothing; a chunk whose text was only reasoning markers produced nothing visible
 * and does not count (the normalizer removes markers, but a backend with `reasoningTags: off`
 * leaves them in the text). The markers are the stream's (`StreamContext.reasoningMarkers`,
 * `<think>` alone by default): llama.cpp's parsers leave `[THINK]`, `[/THINK]` and gpt-oss's
 * `<|channel|>analysis`, `<|message|>`, `<|end|>` in content too, each in a chunk of its own
 * (docs/llamacpp-real.md).
 *
 * N tokens seen at t1..tN span N - 1 generation steps (the first token's own time is latency,
 * already counted by time to first token), so the rate is (N - 1) / (tN - t1). With one token,
 * or a window shorter than MIN_SPEED_WINDOW_MS, there is no honest rate and none is given.
 */
import type { CleanChunk } from '../normalize/clean-chunk.js';
import { THINK_TAGS, type ReasoningMarkers } from '../normalize/think-tag-splitter.js';

/** Below this window the clock's resolution and chunk batching dominate the measurement. */
export const MIN_SPEED_WINDOW_MS = 50;

export interface SpeedResult {
  /** Visible tokens seen. */
  tokens: number;
  /** Time of the first and the last visible token, when there was one. */
  firstAtMs: number | undefined;
  lastAtMs: number | undefined;
  /** Tokens per second, or undefined when there is no honest rate. */
  tokensPerSecond: number | undefined;
}

export interface SpeedMeter {
  /** Feeds one clean chunk; returns whether it counted as a visible token. */
  observe(chunk: CleanChunk, atMs: number): boolean;
  result(): SpeedResult;
}

/** What a chunk's text may be made of and still show nothing: reasoning markers and their pieces. */
export interface MarkerText {
  /** Every piece, longest first. */
  pieces: readonly string[];
  /** Their first characters: text holding none of them holds no marker, and is not copied to find out. */
  starts: string;
}

/**
 * The pieces of the markers: each marker whole, and, for one made of several special tokens
 * (`<|channel|>analysis<|message|>`), each token's part, as a server streams them one a chunk.
 * A part starts at a `<` or `[` inside the marker.
 */
export function markerText(pairs: readonly ReasoningMarkers[]): MarkerText {
  const pieces = new Set<string>();
  for (const marker of pairs.flatMap((pair) => [pair.open, pair.close])) {
    pieces.add(marker);
    let from = 0;
    for (let at = 1; at < marker.length; at++) {
      const char = marker.charAt(at);
      if (char !== '<' && char !== '[') continue;
      pieces.add(marker.slice(from, at));
      from = at;
    }
    pieces.add(marker.slice(from));
  }
  const sorted = [...pieces].filter((piece) => piece.length > 0).sort((a, b) => b.length - a.length);
  return { pieces: sorted, starts: [...new Set(sorted.map((piece) => piece.charAt(0)))].join('') };
}

const THINK_ONLY = markerText([THINK_TAGS]);

function holdsAny(text: string, chars: string): boolean {
  for (let i = 0; i < chars.length; i++) if (text.includes(chars.charAt(i))) return true;
  return false;
}

function visibleText(value: unknown, markers: MarkerText): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  // Run on every chunk: text without a marker's first character is settled without a copy.
  if (!holdsAny(value, markers.starts)) return true;
  let rest = value;
  for (const piece of markers.pieces) if (rest.includes(piece)) rest = rest.split(piece).join('');
  return rest.length > 0;
}

/** Whether a clean chunk carried anything a reader would see. */
export function isVisibleChunk(chunk: CleanChunk, markers: MarkerText = THINK_ONLY): boolean {
  const choice = chunk.choices[0];
  if (choice === undefined) return false;
  const delta: Record<string, unknown> = choice.delta;
  // The common chunk, one piece of answer text, is settled without walking the delta's keys
  // (run on every chunk of every stream).
  const content = delta['content'];
  if (typeof content === 'string' && content.length > 0 && !holdsAny(content, markers.starts)) return true;
  for (const key in delta) {
    if (key === 'role' || !Object.hasOwn(delta, key)) continue;
    const value = delta[key];
    if (key === 'tool_calls') {
      if (Array.isArray(value) && value.length > 0) return true;
      continue;
    }
    // content, refusal and the reasoning key (whatever `reasoning.field` names it)
    if (visibleText(value, markers)) return true;
  }
  return false;
}

/** `markers`: the stream's reasoning markers (`<think>` alone when not given). */
export function createSpeedMeter(markers?: readonly ReasoningMarkers[]): SpeedMeter {
  const text = markers === undefined ? THINK_ONLY : markerText(markers);
  let tokens = 0;
  let firstAtMs: number | undefined;
  let lastAtMs: number | undefined;

  return {
    observe(chunk, atMs) {
      if (!isVisibleChunk(chunk, text)) return false;
      tokens += 1;
      if (firstAtMs === undefined) firstAtMs = atMs;
      lastAtMs = atMs;
      return true;
    },
    result() {
      let tokensPerSecond: number | undefined;
      if (tokens >= 2 && firstAtMs !== undefined && lastAtMs !== undefined) {
        const windowMs = lastAtMs - firstAtMs;
        if (windowMs >= MIN_SPEED_WINDOW_MS) tokensPerSecond = ((tokens - 1) * 1000) / windowMs;
      }
      return { tokens, firstAtMs, lastAtMs, tokensPerSecond };
    },
  };
}
