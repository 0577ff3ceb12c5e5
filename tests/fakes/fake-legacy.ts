/**
 * The legacy routes of the per-server fakes: `POST /v1/completions` (a `text_completion` stream,
 * or one object for `stream: false`) and `POST /v1/embeddings`, answered by a deterministic
 * "model", each in the dialect of its server (docs/legacy-routes.md has the facts): what it does
 * with `suffix` (fills in the middle, ignores it, refuses it), the shape of its chunks and of its
 * usage chunk, and whether it honours `encoding_format: "base64"` or sends floats regardless.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { pieces, sseData, writeEventStream, writeJson } from './fake-model.js';
import type { RecordedRequest, ScriptedResponse } from './scripted-upstream.js';

const completionBodySchema = z.looseObject({
  model: z.string().optional(),
  prompt: z.union([z.string(), z.array(z.string())]),
  suffix: z.string().nullable().optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  logprobs: z.number().nullable().optional(),
  max_tokens: z.number().optional(),
});

export type FakeCompletionBody = z.infer<typeof completionBodySchema>;

/** What the completion model writes: the middle when it sees a suffix, else a continuation. */
export const FILLED_MIDDLE = ' + b';

export function completionText(prompt: string, suffix: string | undefined): string {
  if (suffix !== undefined && suffix.length > 0) return FILLED_MIDDLE;
  if (prompt.toLowerCase().includes('once upon a time')) return ' there was a locker numbered four.';
  if (prompt.toLowerCase().includes('count')) return ' one, two, three, four, five.';
  return ' OK.';
}

export interface CompletionDialect {
  /** `fill`: the model sees the suffix; `ignore`: the server never reads it; a function: the server refuses it so. */
  suffix: 'fill' | 'ignore' | ((res: ServerResponse) => void);
  /** The server's stream chunk for a piece of text (finish null) or its end. */
  chunk(text: string, finish: string | null, body: FakeCompletionBody, logprobs: unknown): Record<string, unknown>;
  /** Its usage chunk, sent when `stream_options.include_usage` asked for it. */
  usageChunk(usage: Record<string, number>, body: FakeCompletionBody): Record<string, unknown>;
  /** Usage rides on the finish chunk, asked or not, instead of a chunk of its own (llama.cpp). */
  usageOnFinish?: boolean;
  /** The server reads `prompt` as one string only (a list is refused the server's way). */
  promptString?: boolean;
  /** Events before the first chunk (Azure's prompt-filter report). */
  opening?: readonly Record<string, unknown>[];
  /** A body that is not a completions request, refused the server's way. */
  refuse(res: ServerResponse): void;
}

function promptOf(body: FakeCompletionBody): string {
  return typeof body.prompt === 'string' ? body.prompt : body.prompt.join('');
}

export function fakeCompletionHandler(dialect: CompletionDialect): ScriptedResponse {
  return {
    kind: 'handler',
    handle: (_req, res, recorded: RecordedRequest) => {
      const parsed = completionBodySchema.safeParse(recorded.body);
      if (!parsed.success) {
        dialect.refuse(res);
        return;
      }
      const body = parsed.data;
      if (dialect.promptString === true && typeof body.prompt !== 'string') {
        dialect.refuse(res);
        return;
      }
      const suffix = body.suffix ?? undefined;
      if (suffix !== undefined && typeof dialect.suffix === 'function') {
        dialect.suffix(res);
        return;
      }
      const prompt = promptOf(body);
      const text = completionText(prompt, dialect.suffix === 'fill' ? suffix : undefined);
      const said = pieces(text);
      const usage = { prompt_tokens: prompt.length, completion_tokens: said.length, total_tokens: prompt.length + said.length };
      const asked = typeof body.logprobs === 'number';
      let offset = prompt.length;
      const logprobsOf = (piece: string): unknown => {
        if (!asked) return null;
        const lp = { tokens: [piece], token_logprobs: [-0.25], top_logprobs: [{ [piece]: -0.25 }], text_offset: [offset] };
        offset += piece.length;
        return lp;
      };
      if (body.stream !== true) {
        const whole = dialect.chunk(text, 'stop', body, asked ? logprobsOf(text) : null);
        writeJson(res, 200, { ...whole, usage });
        return;
      }
      const events = (dialect.opening ?? []).map((event) => sseData(event));
      for (const piece of said) events.push(sseData(dialect.chunk(piece, null, body, logprobsOf(piece))));
      if (dialect.usageOnFinish === true) {
        events.push(sseData({ ...dialect.usageChunk(usage, body), ...dialect.chunk('', 'stop', body, null) }));
      } else {
        events.push(sseData(dialect.chunk('', 'stop', body, null)));
        if (body.stream_options?.include_usage === true) events.push(sseData(dialect.usageChunk(usage, body)));
      }
      events.push(sseData('[DONE]'));
      writeEventStream(res, events);
    },
  };
}

const embeddingBodySchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  encoding_format: z.string().nullable().optional(),
});

/** The fake embedding model: four floats that depend only on the text (exact in float32). */
export function embeddingOf(text: string): number[] {
  let sum = 0;
  for (const char of text) sum += char.codePointAt(0) ?? 0;
  return [text.length, (sum % 64) / 64, 0.5, -0.25];
}

export interface EmbeddingDialect {
  /** Whether `encoding_format: "base64"` is honoured (else floats are sent regardless). */
  base64: boolean;
  /** The `model` it names in its answer. */
  model(body: z.infer<typeof embeddingBodySchema>): string;
  refuse(res: ServerResponse): void;
}

export function fakeEmbeddingHandler(dialect: EmbeddingDialect): ScriptedResponse {
  return {
    kind: 'handler',
    handle: (_req, res, recorded: RecordedRequest) => {
      const parsed = embeddingBodySchema.safeParse(recorded.body);
      if (!parsed.success) {
        dialect.refuse(res);
        return;
      }
      const body = parsed.data;
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      const base64 = dialect.base64 && body.encoding_format === 'base64';
      const data = inputs.map((text, index) => {
        const vector = embeddingOf(text);
        const bytes = Buffer.alloc(vector.length * 4);
        vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
        return { object: 'embedding', index, embedding: base64 ? bytes.toString('base64') : vector };
      });
      const tokens = inputs.reduce((sum, text) => sum + text.length, 0);
      writeJson(res, 200, { object: 'list', data, model: dialect.model(body), usage: { prompt_tokens: tokens, total_tokens: tokens } });
    },
  };
}
