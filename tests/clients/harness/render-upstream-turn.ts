/**
 * Frames one UpstreamTurn the way a backend's server sends it (docs/wire-protocol.md):
 * which key carries reasoning, the null keys and extras each server adds, its first delta, its
 * comments, its usage chunk, and how it reports a failure inside the stream. The bytes are then
 * cut into pieces at fixed offsets, so that svir's decoder meets boundaries inside lines, JSON
 * strings and multi-byte characters, as it does on a real socket.
 */
import { splitBytes, type Piece, type ScriptedResponse } from '../../fakes/scripted-upstream.js';
import type { BackendFlavor, Dialect } from './backend-flavors.js';
import type { ToolPiece, TurnStep, TurnUsage, UpstreamTurn } from './upstream-turn.js';

type Json = Record<string, unknown>;

const CREATED = 1_767_225_600;
/** Bytes per network piece: small and odd, so cuts land everywhere. */
const PIECE_BYTES = 29;

/** The think markers as servers without a reasoning parser write them, split mid-marker. */
const OPEN_TAG_PIECES = ['<thi', 'nk>'] as const;
const CLOSE_TAG_PIECES = ['</th', 'ink>'] as const;

function toolPieces(pieces: ToolPiece[]): Json[] {
  return pieces.map((piece) => {
    const fn: Json = {};
    if (piece.name !== undefined) fn['name'] = piece.name;
    if (piece.arguments !== undefined) fn['arguments'] = piece.arguments;
    const out: Json = { index: piece.index };
    if (piece.id !== undefined) {
      out['id'] = piece.id;
      out['type'] = 'function';
    }
    out['function'] = fn;
    return out;
  });
}

/**
 * Ollama hands each call over whole, once its parser has it, every one at `index: 0` (before
 * v0.20.6, and gpt-oss still; docs/ollama.md): the pieces of the turn's calls become one chunk
 * per whole call, in index order, where the last piece came.
 */
function wholeCallsAtIndexZero(steps: TurnStep[]): TurnStep[] {
  const calls = new Map<number, ToolPiece>();
  let last = -1;
  steps.forEach((step, i) => {
    if (!('tools' in step)) return;
    last = i;
    for (const piece of step.tools) {
      const call = calls.get(piece.index) ?? { index: 0, name: '', arguments: '' };
      if (piece.id !== undefined) call.id = piece.id;
      call.name = (call.name ?? '') + (piece.name ?? '');
      call.arguments = (call.arguments ?? '') + (piece.arguments ?? '');
      calls.set(piece.index, call);
    }
  });
  const whole = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]): TurnStep => ({ tools: [call] }));
  return steps.flatMap((step, i) => ('tools' in step ? (i === last ? whole : []) : [step]));
}

function usageOf(dialect: Dialect, usage: TurnUsage): Json {
  const out: Json = {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
  };
  if (usage.reasoning_tokens !== undefined) out['completion_tokens_details'] = { reasoning_tokens: usage.reasoning_tokens };
  if (dialect === 'mlx-lm' || dialect === 'mlx-vlm') out['prompt_tokens_details'] = { cached_tokens: 0 };
  return out;
}

/**
 * Steps with reasoning carried in content (`<think>` tags, or only the closing one when the
 * template opened it), as content steps whose markers are split across chunks.
 */
function inlineThinkTags(steps: TurnStep[], templateOpened: boolean): TurnStep[] {
  const out: TurnStep[] = [];
  // A template that opened the tag leaves the model inside it from its first token: even an
  // answer without reasoning starts by closing it.
  let inReasoning = templateOpened;
  for (const step of steps) {
    if ('reasoning' in step) {
      if (inReasoning) out.push({ content: step.reasoning });
      else {
        out.push({ content: OPEN_TAG_PIECES[0] });
        out.push({ content: OPEN_TAG_PIECES[1] + step.reasoning });
      }
      inReasoning = true;
      continue;
    }
    if (inReasoning) {
      out.push({ content: CLOSE_TAG_PIECES[0] });
      inReasoning = false;
      if ('content' in step) {
        out.push({ content: CLOSE_TAG_PIECES[1] + step.content });
        continue;
      }
      out.push({ content: CLOSE_TAG_PIECES[1] });
    }
    out.push(step);
  }
  return out;
}

interface Framer {
  /** The events of the stream, in order, up to the failure if there is one. */
  events: string[];
  /** The failure's own event (an error chunk, `event: error`), if the server has one. */
  failure: string[];
}

function frame(dialect: Dialect, upstreamModel: string, turn: UpstreamTurn): Framer {
  const id = dialect === 'azure' ? 'chatcmpl-AzUre0001' : 'chatcmpl-upstream-1';
  const events: string[] = [];
  const data = (payload: Json): void => {
    events.push(`data: ${JSON.stringify(payload)}\n\n`);
  };

  /** The chunk with this server's extras; `extra` (e.g. the real usage) goes last and wins. */
  const envelope = (choices: Json[], extra: Json = {}): Json => {
    const base: Json = { id, object: 'chat.completion.chunk', created: CREATED, model: upstreamModel, choices };
    switch (dialect) {
      case 'openai':
        return { ...base, service_tier: 'default', system_fingerprint: 'fp_compat', ...extra };
      case 'llamacpp':
      case 'llamacpp-think-tags':
        return { ...base, system_fingerprint: 'b11429-0d1e2f3', ...extra };
      case 'mlx-vlm':
        return { ...base, usage: null, timings: { prompt_tps: 512.5, generation_tps: 31.2 }, ...extra };
      case 'azure':
        return { ...base, obfuscation: 'q7Xz', service_tier: 'default', system_fingerprint: null, usage: null, ...extra };
      case 'ollama':
        return { ...base, system_fingerprint: 'fp_ollama', ...extra };
      default:
        return { ...base, ...extra };
    }
  };

  const choice = (delta: Json, finish: string | null): Json => {
    const out: Json = { index: 0, delta, finish_reason: finish };
    if (dialect === 'openai' || dialect === 'mlx-vlm') out['logprobs'] = null;
    if (dialect === 'vllm' || dialect === 'vllm-template-opened-think') {
      out['logprobs'] = null;
      out['token_ids'] = null;
    }
    if (dialect === 'azure') out['content_filter_results'] = {};
    return out;
  };

  /** The delta as this server writes it: extra keys, nulls, the role where it repeats it. */
  const delta = (payload: Json): Json => {
    switch (dialect) {
      case 'mlx-lm':
        return { role: 'assistant', ...payload };
      case 'ollama':
        // `"content": ""` beside reasoning and calls; the finish delta is empty.
        return Object.keys(payload).length === 0 || 'content' in payload ? payload : { content: '', ...payload };
      case 'mlx-vlm': {
        const reasoning = payload['reasoning_content'];
        return {
          role: 'assistant',
          content: null,
          reasoning_content: null,
          reasoning: null,
          tool_calls: null,
          tool_call_id: null,
          name: null,
          ...payload,
          // mlx-vlm writes each piece of reasoning twice, under both keys: one text.
          ...(typeof reasoning === 'string' ? { reasoning } : {}),
        };
      }
      default:
        return payload;
    }
  };

  const reasoningKey = dialect === 'vllm' || dialect === 'mlx-lm' || dialect === 'ollama' ? 'reasoning' : 'reasoning_content';

  // What comes before the first chunk.
  if (dialect === 'mlx-lm') events.push(': keepalive 128/512\n\n', ': keepalive 512/512\n\n');
  if (dialect === 'azure') {
    data({
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [
        { prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' }, jailbreak: { filtered: false, detected: false } } },
      ],
    });
  }

  // The first chunk: the role, with each server's idea of an empty start.
  const first: Json = { role: 'assistant' };
  if (dialect === 'llamacpp' || dialect === 'llamacpp-think-tags') first['content'] = null;
  if (dialect === 'vllm' || dialect === 'vllm-template-opened-think' || dialect === 'openai' || dialect === 'ollama') first['content'] = '';
  if (dialect === 'azure') Object.assign(first, { content: '', refusal: null });
  data(
    envelope(
      [choice(delta(first), null)],
      dialect === 'vllm' || dialect === 'vllm-template-opened-think' ? { prompt_token_ids: null, prompt_text: null } : {},
    ),
  );

  const steps =
    dialect === 'llamacpp-think-tags'
      ? inlineThinkTags(turn.steps, false)
      : dialect === 'vllm-template-opened-think'
        ? inlineThinkTags(turn.steps, true)
        : dialect === 'ollama'
          ? wholeCallsAtIndexZero(turn.steps)
          : turn.steps;

  for (const step of steps) {
    if ('reasoning' in step) data(envelope([choice(delta({ [reasoningKey]: step.reasoning }), null)]));
    else if ('content' in step) data(envelope([choice(delta({ content: step.content }), null)]));
    else if ('tools' in step) data(envelope([choice(delta({ tool_calls: toolPieces(step.tools) }), null)]));
    else if ('finish' in step) data(envelope([choice(delta({}), step.finish)]));
    else {
      const usage = usageOf(dialect, step.usage);
      if (dialect === 'llamacpp' || dialect === 'llamacpp-think-tags' || dialect === 'mlx-vlm') {
        usage['timings'] = { prompt_per_second: 512.5, predicted_per_second: 31.2 };
      }
      const chunk = envelope([], { usage });
      // mlx-lm's usage chunk calls itself a whole completion.
      if (dialect === 'mlx-lm') chunk['object'] = 'chat.completion';
      data(chunk);
    }
  }

  const failure: string[] = [];
  if (turn.end.kind === 'done') events.push('data: [DONE]\n\n');
  else {
    const message = turn.end.message;
    if (dialect === 'llamacpp' || dialect === 'llamacpp-think-tags') {
      failure.push(`data: ${JSON.stringify({ error: { code: 500, message, type: 'server_error' } })}\n\n`);
    } else if (dialect === 'vllm' || dialect === 'vllm-template-opened-think') {
      failure.push(`data: ${JSON.stringify({ error: { message, type: 'InternalServerError', param: null, code: 500 } })}\n\n`);
    } else if (dialect === 'lmstudio') {
      failure.push(`event: error\ndata: ${JSON.stringify({ error: { message }, message })}\n\n`);
    } else if (dialect === 'ollama') {
      // Ollama loses the message: its {"error"} line becomes one empty chunk, then the body ends.
      failure.push(`data: ${JSON.stringify(envelope([choice(delta({ content: '' }), null)]))}\n\n`);
    }
    // The others have no in-stream error: the connection is cut (see renderUpstreamTurn).
  }
  return { events, failure };
}

/** Cuts text into PIECE_BYTES-sized pieces. */
function cut(text: string): Uint8Array[] {
  const length = Buffer.byteLength(text, 'utf8');
  const offsets: number[] = [];
  for (let at = PIECE_BYTES; at < length; at += PIECE_BYTES) offsets.push(at);
  return splitBytes(text, offsets);
}

export interface RenderOptions {
  /**
   * For a turn that ends in an error: the failure waits for this, so that the client has read
   * the partial answer first (a connection cut right after the last bytes can lose them).
   */
  failAfter?: Promise<unknown>;
  /** The same by time, counted from when the answer's last words were written (a client svir cannot signal from). */
  failAfterMs?: number;
}

/** The whole scripted answer for the fake upstream of one backend flavor. */
export function renderUpstreamTurn(flavor: BackendFlavor, turn: UpstreamTurn, options: RenderOptions = {}): ScriptedResponse {
  const { events, failure } = frame(flavor.dialect, flavor.upstreamModel, turn);
  if (turn.end.kind === 'done') return { kind: 'sse', pieces: cut(events.join('')), finish: 'end' };
  const pieces: Piece[] = cut(events.join(''));
  if (options.failAfter !== undefined) pieces.push({ waitFor: options.failAfter });
  if (options.failAfterMs !== undefined) pieces.push({ delayMs: options.failAfterMs });
  if (failure.length > 0) {
    pieces.push(...cut(failure.join('')));
    return { kind: 'sse', pieces, finish: 'end' };
  }
  return { kind: 'sse', pieces, finish: 'destroy' };
}
