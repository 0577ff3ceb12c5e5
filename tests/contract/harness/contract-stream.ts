/**
 * docs/contract.md#clean-dialect read off the wire, independently of svir's own helpers: the bytes
 * of a streamed answer are split into events and every sentence of the clean dialect is checked on
 * them. Returns what the answer said (content, reasoning, calls, finish, usage) for the test's own
 * assertions. Written from the contract only, so it can disagree with svir.
 */
import { expect } from 'vitest';

export interface ParsedEvents {
  /** Payloads of `data:` events, JSON-parsed, in order (not `[DONE]`). */
  payloads: Record<string, unknown>[];
  comments: string[];
  done: boolean;
  /** The `{"error":...}` event that ended the stream, when one did. */
  error?: Record<string, unknown>;
}

/** Framing (docs/contract.md#clean-dialect first bullet): `data: <json>\n\n` only, LF, one data line, no `event:`. */
export function parseEvents(text: string): ParsedEvents {
  expect(text, 'no CR anywhere in the stream').not.toContain('\r');
  expect(text.endsWith('\n\n'), 'the stream ends at an event boundary').toBe(true);
  const blocks = text.slice(0, -2).split('\n\n');
  const parsed: ParsedEvents = { payloads: [], comments: [], done: false };
  blocks.forEach((block, i) => {
    expect(block, 'no blank lines inside an event').not.toBe('');
    const lines = block.split('\n');
    expect(lines, `one line per event: ${JSON.stringify(block)}`).toHaveLength(1);
    const line = lines[0] ?? '';
    if (line.startsWith(':')) {
      // Only svir's own keepalive: never `: ping`, never an upstream comment.
      expect(line).toMatch(/^: keepalive$/);
      parsed.comments.push(line);
      return;
    }
    expect(line.startsWith('data: '), `only data lines: ${JSON.stringify(line)}`).toBe(true);
    expect(parsed.done, 'nothing after [DONE]').toBe(false);
    expect(parsed.error, 'nothing after an error event').toBeUndefined();
    const data = line.slice('data: '.length);
    if (data === '[DONE]') {
      parsed.done = true;
      expect(i, '[DONE] is the last event').toBe(blocks.length - 1);
      return;
    }
    const value: unknown = JSON.parse(data);
    expect(typeof value === 'object' && value !== null && !Array.isArray(value), 'a JSON object').toBe(true);
    const payload = value as Record<string, unknown>;
    if ('error' in payload) {
      parsed.error = payload;
      return;
    }
    parsed.payloads.push(payload);
  });
  return parsed;
}

/** docs/contract.md#errors: exactly `{"error":{"message","type","param","code"}}`. */
export function expectErrorShape(body: unknown, code?: string): { message: string; type: string; param: string | null; code: string | null } {
  expect(body).toBeTypeOf('object');
  const outer = body as Record<string, unknown>;
  expect(Object.keys(outer)).toEqual(['error']);
  const error = outer.error as Record<string, unknown>;
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof error.message === 'string' && error.message.length > 0, 'a non-empty message').toBe(true);
  expect(typeof error.type).toBe('string');
  expect(error.param === null || typeof error.param === 'string').toBe(true);
  expect(error.code === null || typeof error.code === 'string').toBe(true);
  if (code !== undefined) expect(error.code).toBe(code);
  return error as { message: string; type: string; param: string | null; code: string | null };
}

export interface StreamExpectations {
  /** The model string the client sent. */
  model: string;
  includeUsage?: boolean;
  /** `reasoning.field` in force (default `reasoning_content`). */
  reasoningField?: string;
}

export interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

export interface StreamResult {
  chunks: Record<string, unknown>[];
  content: string;
  reasoning: string;
  refusal: string;
  calls: AssembledCall[];
  finish: string;
  usage?: Record<string, unknown>;
  events: ParsedEvents;
}

const CHUNK_KEYS = ['choices', 'created', 'id', 'model', 'object'];
const FINISHES = new Set(['stop', 'length', 'tool_calls', 'content_filter']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every rule of docs/contract.md#clean-dialect on a complete stream (one that ended with [DONE]). */
export function expectContractStream(text: string, want: StreamExpectations): StreamResult {
  const events = parseEvents(text);
  expect(events.error, 'a complete stream has no error event').toBeUndefined();
  expect(events.done, 'the stream ends with [DONE]').toBe(true);
  return checkChunks(events, want);
}

/** docs/contract.md#clean-dialect on the chunks of any stream, complete or ended by an error event. */
export function checkChunks(events: ParsedEvents, want: StreamExpectations): StreamResult {
  const field = want.reasoningField ?? 'reasoning_content';
  const deltaKeys = new Set(['role', 'content', field, 'tool_calls', 'refusal']);
  const chunks = events.payloads;
  const result: StreamResult = { chunks, content: '', reasoning: '', refusal: '', calls: [], finish: '', events };
  expect(chunks.length, 'at least one chunk').toBeGreaterThan(0);
  const first = chunks[0] ?? {};
  const id = first.id;
  const created = first.created;
  expect(typeof id === 'string' && id.length > 0, 'a non-empty id').toBe(true);
  expect(Number.isInteger(created) && Number(created) > 0, 'created is whole seconds, not 0').toBe(true);

  let finishAt = -1;
  let usageAt = -1;
  let choiceChunks = 0;
  /** Output index → the call; and whether its arguments parsed when a later call started. */
  const calls: AssembledCall[] = [];
  let current = -1;
  chunks.forEach((chunk, i) => {
    const where = `chunk ${i}: ${JSON.stringify(chunk)}`;
    expect(chunk.object, where).toBe('chat.completion.chunk');
    expect(chunk.id, where).toBe(id);
    expect(chunk.created, where).toBe(created);
    expect(chunk.model, where).toBe(want.model);
    const choices = chunk.choices;
    expect(Array.isArray(choices), where).toBe(true);
    if (Array.isArray(choices) && choices.length === 0) {
      // The usage chunk: after the finish, once, only when asked.
      expect(Object.keys(chunk).sort(), where).toEqual([...CHUNK_KEYS, 'usage'].sort());
      expect(usageAt, 'one usage chunk').toBe(-1);
      expect(finishAt, 'usage after the finish chunk').toBeGreaterThanOrEqual(0);
      usageAt = i;
      const usage = chunk.usage;
      expect(isRecord(usage), where).toBe(true);
      if (isRecord(usage)) {
        for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens']) expect(Number.isInteger(usage[key]), `${where} ${key}`).toBe(true);
        for (const key of Object.keys(usage)) {
          expect(['prompt_tokens', 'completion_tokens', 'total_tokens', 'completion_tokens_details', 'prompt_tokens_details'], where).toContain(key);
        }
        if (usage.completion_tokens_details !== undefined) expect(Object.keys(usage.completion_tokens_details as object)).toEqual(['reasoning_tokens']);
        if (usage.prompt_tokens_details !== undefined) expect(Object.keys(usage.prompt_tokens_details as object)).toEqual(['cached_tokens']);
        result.usage = usage;
      }
      return;
    }
    expect(Object.keys(chunk).sort(), `${where}: exactly the chunk keys`).toEqual(CHUNK_KEYS);
    expect(finishAt, `${where}: no choice chunk after the finish`).toBe(-1);
    expect(choices, where).toHaveLength(1);
    const choice = (choices as unknown[])[0];
    expect(isRecord(choice), where).toBe(true);
    if (!isRecord(choice)) return;
    for (const key of Object.keys(choice)) expect(['index', 'delta', 'finish_reason', 'logprobs'], where).toContain(key);
    expect(choice.index, where).toBe(0);
    expect('finish_reason' in choice, where).toBe(true);
    if ('logprobs' in choice) expect(choice.logprobs, `${where}: never logprobs null`).not.toBeNull();
    const delta = choice.delta;
    expect(isRecord(delta), where).toBe(true);
    if (!isRecord(delta)) return;
    for (const [key, value] of Object.entries(delta)) {
      expect(deltaKeys.has(key), `${where}: delta key ${key}`).toBe(true);
      expect(value, `${where}: ${key} is not null`).not.toBeNull();
    }
    if (choiceChunks === 0) expect(delta.role, `${where}: role in the first chunk`).toBe('assistant');
    else expect('role' in delta, `${where}: role in the first chunk only`).toBe(false);
    const payloads = Object.keys(delta).filter((key) => key !== 'role');
    expect(payloads.length, `${where}: one payload per delta`).toBeLessThanOrEqual(1);
    const finish = choice.finish_reason;
    if (finish !== null) {
      expect(FINISHES.has(String(finish)), where).toBe(true);
      finishAt = i;
      result.finish = String(finish);
    } else if (choiceChunks > 0) {
      expect(payloads.length, `${where}: no empty delta except the first and the finish`).toBe(1);
    }
    choiceChunks += 1;
    if (typeof delta.content === 'string') result.content += delta.content;
    if (typeof delta[field] === 'string') result.reasoning += delta[field];
    if (typeof delta.refusal === 'string') result.refusal += delta.refusal;
    if (delta.tool_calls !== undefined) {
      expect(Array.isArray(delta.tool_calls), where).toBe(true);
      for (const piece of delta.tool_calls as unknown[]) {
        expect(isRecord(piece), where).toBe(true);
        if (!isRecord(piece)) continue;
        const index = piece.index;
        expect(Number.isInteger(index), where).toBe(true);
        const fn = piece.function;
        expect(isRecord(fn), where).toBe(true);
        if (!isRecord(fn) || typeof index !== 'number') continue;
        if (index === calls.length) {
          // The first piece of a call: index, id, type, the whole name, arguments starting.
          expect(Object.keys(piece).sort(), where).toEqual(['function', 'id', 'index', 'type']);
          expect(piece.type, where).toBe('function');
          expect(typeof piece.id === 'string' && piece.id.length > 0, `${where}: a non-empty id`).toBe(true);
          expect(calls.map((c) => c.id), `${where}: unique ids`).not.toContain(piece.id);
          expect(Object.keys(fn).sort(), where).toEqual(['arguments', 'name']);
          expect(typeof fn.name === 'string' && fn.name.length > 0, where).toBe(true);
          expect(typeof fn.arguments, where).toBe('string');
          if (current >= 0) {
            const earlier = calls[current];
            // Never interleaved: a later call starts only once the earlier ones are complete.
            expect(() => JSON.parse(earlier?.arguments ?? ''), `${where}: call ${current} complete before call ${index}`).not.toThrow();
          }
          calls.push({ id: String(piece.id), name: String(fn.name), arguments: String(fn.arguments) });
          current = index;
        } else {
          expect(index, `${where}: indices run 0..n-1 in order`).toBeLessThan(calls.length);
          expect(Object.keys(piece).sort(), `${where}: later pieces carry index and arguments only`).toEqual(['function', 'index']);
          expect(Object.keys(fn), where).toEqual(['arguments']);
          expect(typeof fn.arguments, where).toBe('string');
          const call = calls[index];
          if (call !== undefined) call.arguments += String(fn.arguments);
        }
      }
    }
  });
  result.calls = calls;
  if (events.done) {
    expect(finishAt, 'a finish chunk').toBeGreaterThanOrEqual(0);
    expect(finishAt, 'the finish is on the last choice chunk').toBe(usageAt === -1 ? chunks.length - 1 : usageAt - 1);
    if (calls.length > 0 && result.finish !== 'length' && result.finish !== 'content_filter') expect(result.finish).toBe('tool_calls');
    if (result.finish === 'tool_calls') expect(calls.length, 'tool_calls only with calls').toBeGreaterThan(0);
    if (want.includeUsage !== true) expect(usageAt, 'no usage chunk unasked').toBe(-1);
  }
  return result;
}
