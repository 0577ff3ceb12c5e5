/**
 * svir on 127.0.0.1:0 in front of the per-server fakes, for the backend end-to-end tests, and a
 * strict reader of what svir streams back: every rule of the clean dialect
 * (docs/contract.md#clean-dialect) checked on every frame, so each test also shows the client got
 * the clean dialect.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import type { RecordedRequest, ScriptedUpstream } from '../fakes/scripted-upstream.js';

export interface RigBackend {
  name: string;
  type: string;
  upstream: ScriptedUpstream;
  /** Path appended to the fake's origin for the config `url` (default `/v1`). */
  urlPath?: string;
  /** Configured models; absent: discovered from the fake's GET /v1/models. */
  models?: string[];
  [key: string]: unknown;
}

export interface SvirRig {
  url: string;
  /** POST /v1/chat/completions with svir's key. */
  chat(body: Record<string, unknown>): Promise<SvirAnswer>;
  close(): Promise<void>;
}

export interface SvirAnswer {
  status: number;
  headers: Headers;
  text: string;
  json(): unknown;
}

export const SVIR_KEY = 'sk-svir-backends-e2e';

export async function startSvir(backends: readonly RigBackend[], extra: Record<string, unknown> = {}): Promise<SvirRig> {
  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, apiKeys: [SVIR_KEY], logLevel: 'silent', keepaliveMs: 0 },
    backends: backends.map(({ upstream, urlPath, ...entry }) => ({ ...entry, url: `${upstream.url}${urlPath ?? '/v1'}` })),
    ...extra,
  });
  const app = buildServer(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    async chat(body) {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
    },
    async close() {
      await app.close();
    },
  };
}

/** The one chat request the fake received (the n-th), parsed. */
export function received(upstream: ScriptedUpstream, n = 0, path = '/v1/chat/completions'): Record<string, unknown> {
  const request: RecordedRequest | undefined = upstream.requestsTo('POST', path)[n];
  if (request === undefined) throw new Error(`the fake received no request ${n} on ${path}`);
  const body = z.record(z.string(), z.unknown()).safeParse(request.body);
  if (!body.success) throw new Error('the fake received a body that is not a JSON object');
  return body.data;
}

export function receivedHeaders(upstream: ScriptedUpstream, n = 0, path = '/v1/chat/completions'): RecordedRequest['headers'] {
  const request = upstream.requestsTo('POST', path)[n];
  if (request === undefined) throw new Error(`the fake received no request ${n} on ${path}`);
  return request.headers;
}

const noNull = <T extends z.ZodType>(schema: T) => schema.optional();

const toolDelta = z.strictObject({
  index: z.number().int().nonnegative(),
  id: noNull(z.string().min(1)),
  type: noNull(z.literal('function')),
  function: z.strictObject({ name: noNull(z.string().min(1)), arguments: z.string() }),
});

/** The delta's fixed keys; the reasoning key is configurable and checked apart. */
const deltaSchema = z.looseObject({
  role: noNull(z.literal('assistant')),
  content: noNull(z.string()),
  tool_calls: noNull(z.array(toolDelta).min(1)),
  refusal: noNull(z.string()),
});

const usageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  completion_tokens_details: z.strictObject({ reasoning_tokens: z.number().int().nonnegative() }).optional(),
  prompt_tokens_details: z.strictObject({ cached_tokens: z.number().int().nonnegative() }).optional(),
});

function chunkSchema() {
  return z.strictObject({
    id: z.string().min(1),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int().positive(),
    model: z.string(),
    choices: z.array(
      z.strictObject({
        index: z.literal(0),
        delta: deltaSchema,
        finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']).nullable(),
        logprobs: z.unknown().optional(),
      }),
    ).max(1),
    usage: usageSchema.optional(),
  });
}

const errorBodySchema = z.strictObject({
  error: z.strictObject({ message: z.string().min(1), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
});

export interface CleanAnswer {
  content: string;
  reasoning: string;
  refusal: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finish: string | null;
  usage: z.infer<typeof usageSchema> | undefined;
  /** The error event that ended the stream, if one did. */
  error: z.infer<typeof errorBodySchema>['error'] | undefined;
  done: boolean;
  /** Which payload keys each choice chunk carried, in order. */
  deltaKinds: string[];
}

/**
 * Reads a streamed answer as a strict client would and checks the clean dialect: `data:` frames
 * only, LF line ends, exact chunk keys, one choice, role only first, no nulls, one payload kind
 * per delta, one finish on the last choice chunk, usage after it, the same id and created, the
 * client's model, tool calls whole-named on their first piece, `[DONE]` last (or one error
 * event and no `[DONE]`).
 */
export function readCleanStream(answer: SvirAnswer, model: string, reasoningField = 'reasoning_content'): CleanAnswer {
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(answer.text).not.toContain('\r');
  const frames = answer.text.split('\n\n');
  expect(frames.pop()).toBe('');
  const schema = chunkSchema();
  const deltaKeys = new Set(['role', 'content', reasoningField, 'tool_calls', 'refusal']);
  const out: CleanAnswer = { content: '', reasoning: '', refusal: '', toolCalls: [], finish: null, usage: undefined, error: undefined, done: false, deltaKinds: [] };
  let identity: { id: string; created: number } | undefined;
  let choiceChunks = 0;
  for (const [i, frame] of frames.entries()) {
    // svir's own comments: keepalives, and what it changed in the answer (changes-header.ts).
    if (frame.startsWith(': keepalive') || frame.startsWith(': x-svir-changes: ')) continue;
    expect(frame.startsWith('data: '), `frame ${i}: ${frame}`).toBe(true);
    expect(frame.slice(6)).not.toContain('\n');
    const payload = frame.slice(6);
    expect(out.done, 'nothing after [DONE]').toBe(false);
    expect(out.error, 'nothing after an error event').toBeUndefined();
    if (payload === '[DONE]') {
      out.done = true;
      continue;
    }
    const json: unknown = JSON.parse(payload);
    const error = errorBodySchema.safeParse(json);
    if (error.success) {
      out.error = error.data.error;
      continue;
    }
    const chunk = schema.parse(json);
    expect(chunk.model).toBe(model);
    identity ??= { id: chunk.id, created: chunk.created };
    expect({ id: chunk.id, created: chunk.created }).toEqual(identity);
    const [choice] = chunk.choices;
    if (choice === undefined) {
      expect(chunk.usage, 'a chunk without a choice is the usage chunk').toBeDefined();
      expect(out.finish, 'usage comes after the finish').not.toBeNull();
      out.usage = chunk.usage;
      continue;
    }
    expect(chunk.usage).toBeUndefined();
    expect(out.finish, 'the finish is on the last choice chunk').toBeNull();
    const delta = choice.delta;
    for (const [key, value] of Object.entries(delta)) {
      expect(deltaKeys.has(key), `delta key ${key}`).toBe(true);
      expect(value, `delta key ${key} is never null`).not.toBeNull();
    }
    const reasoning = z.string().optional().parse(delta[reasoningField]);
    expect(delta.role === 'assistant', 'role in the first chunk and no other').toBe(choiceChunks === 0);
    choiceChunks += 1;
    const kinds = ['content', reasoningField, 'tool_calls', 'refusal'].filter((key) => key in delta);
    expect(kinds.length, 'one kind of payload per delta').toBeLessThanOrEqual(1);
    if (kinds.length === 0) expect(choiceChunks === 1 || choice.finish_reason !== null, 'no empty delta but the first and the finish').toBe(true);
    out.deltaKinds.push(kinds[0] ?? 'none');
    out.reasoning += reasoning ?? '';
    out.content += delta.content ?? '';
    out.refusal += delta.refusal ?? '';
    for (const piece of delta.tool_calls ?? []) {
      const call = out.toolCalls[piece.index];
      if (call === undefined) {
        expect(piece.index, 'indices run 0..n-1').toBe(out.toolCalls.length);
        expect(piece.id !== undefined && piece.type === 'function' && piece.function.name !== undefined, 'first piece: id, type, name').toBe(true);
        out.toolCalls.push({ id: piece.id ?? '', name: piece.function.name ?? '', arguments: piece.function.arguments });
      } else {
        expect(piece.id === undefined && piece.function.name === undefined, 'later pieces: arguments only').toBe(true);
        call.arguments += piece.function.arguments;
      }
    }
    if (choice.finish_reason !== null) out.finish = choice.finish_reason;
  }
  expect(out.done !== (out.error !== undefined), 'ends with [DONE] or with one error event').toBe(true);
  return out;
}

/** An error answer before any stream: the one shape, with this status and code. */
export function expectErrorAnswer(answer: SvirAnswer, status: number, code: string): z.infer<typeof errorBodySchema>['error'] {
  expect(answer.status, answer.text).toBe(status);
  const body = errorBodySchema.parse(answer.json());
  expect(body.error.code).toBe(code);
  return body.error;
}

/** The phrases of the changes header. */
export function changesOf(answer: SvirAnswer): string[] {
  const header = answer.headers.get('x-svir-changes');
  return header === null ? [] : header.split(', ');
}
