/**
 * Checks a list of clean chunks against every structural rule of docs/contract.md#clean-dialect,
 * whatever the content: keys, identity, role once, no nulls, no empty deltas, one payload per
 * delta, tool-call pieces in order, one finish on the last choice chunk, usage after it. For
 * fixture and property tests of any backend.
 */
import { expect } from 'vitest';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';

export interface CleanStreamExpectations {
  /** The stream completed (the normalizer said `done`): a finish chunk must end it. */
  done: boolean;
  /** The key reasoning goes out under; default `reasoning_content`. */
  reasoningField?: string;
  /** The model every chunk must carry. */
  model?: string;
}

const FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter']);

export function expectCleanStream(chunks: readonly CleanChunk[], expectations: CleanStreamExpectations): void {
  const reasoningField = expectations.reasoningField ?? 'reasoning_content';
  const payloadKeys = new Set(['content', reasoningField, 'tool_calls', 'refusal']);
  const first = chunks[0];
  if (first === undefined) {
    expect(expectations.done, 'a completed stream has chunks').toBe(false);
    return;
  }
  expect(first.id.length).toBeGreaterThan(0);
  expect(Number.isInteger(first.created) && first.created > 0).toBe(true);
  if (expectations.model !== undefined) expect(first.model).toBe(expectations.model);

  const choiceChunks = chunks.filter((chunk) => chunk.choices.length > 0);
  const usageChunks = chunks.filter((chunk) => chunk.choices.length === 0);
  let finishes = 0;
  const callIds = new Set<string>();
  let calls = 0;
  let openCall = -1;

  chunks.forEach((chunk, position) => {
    const where = `chunk ${position}: ${JSON.stringify(chunk)}`;
    expect(chunk.id, where).toBe(first.id);
    expect(chunk.created, where).toBe(first.created);
    expect(chunk.model, where).toBe(first.model);
    expect(chunk.object, where).toBe('chat.completion.chunk');
    if (chunk.choices.length === 0) {
      expect(Object.keys(chunk), where).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage']);
      return;
    }
    expect(Object.keys(chunk), where).toEqual(['id', 'object', 'created', 'model', 'choices']);
    expect(chunk.choices, where).toHaveLength(1);
    const choice = chunk.choices[0];
    if (choice === undefined) return;
    expect(choice.index, where).toBe(0);
    const choiceKeys = Object.keys(choice);
    expect(choiceKeys.filter((key) => key !== 'logprobs'), where).toEqual(['index', 'delta', 'finish_reason']);
    if ('logprobs' in choice) expect(choice.logprobs, where).not.toBeNull();

    const isFirst = chunk === choiceChunks[0];
    const delta = choice.delta;
    const keys = Object.keys(delta);
    for (const key of keys) {
      expect(key === 'role' || payloadKeys.has(key), `${where}: unknown delta key ${key}`).toBe(true);
      expect(delta[key], `${where}: null ${key}`).not.toBeNull();
    }
    if (isFirst) expect(delta.role, where).toBe('assistant');
    else expect('role' in delta, `${where}: role after the first chunk`).toBe(false);
    const payloads = keys.filter((key) => payloadKeys.has(key));
    expect(payloads.length, `${where}: one payload kind per delta`).toBeLessThanOrEqual(1);
    if (choice.finish_reason !== null) {
      finishes++;
      expect(FINISH_REASONS.has(choice.finish_reason), where).toBe(true);
      expect(chunk, `${where}: the finish is on the last choice chunk`).toBe(choiceChunks[choiceChunks.length - 1]);
    } else if (!isFirst) {
      expect(payloads.length, `${where}: empty delta`).toBe(1);
    }
    for (const key of payloads) {
      if (key === 'tool_calls') continue;
      const text = delta[key];
      expect(typeof text === 'string' && text.length > 0, `${where}: ${key} text`).toBe(true);
    }
    for (const piece of delta.tool_calls ?? []) {
      if (piece.index === calls) {
        expect(piece.id !== undefined && piece.id.length > 0 && !callIds.has(piece.id), `${where}: new unique id`).toBe(true);
        callIds.add(piece.id ?? '');
        expect(piece.type, where).toBe('function');
        expect((piece.function.name ?? '').length, `${where}: whole name`).toBeGreaterThan(0);
        expect(typeof piece.function.arguments, where).toBe('string');
        openCall = calls++;
      } else {
        expect(piece.index, `${where}: pieces of one call at a time`).toBe(openCall);
        expect(Object.keys(piece), where).toEqual(['index', 'function']);
        expect(Object.keys(piece.function), where).toEqual(['arguments']);
      }
    }
  });

  if (expectations.done) {
    expect(finishes, 'one finish reason').toBe(1);
    if (calls > 0) {
      const finish = choiceChunks[choiceChunks.length - 1]?.choices[0]?.finish_reason;
      expect(['tool_calls', 'length', 'content_filter']).toContain(finish);
    }
  } else {
    expect(finishes, 'no finish in a failed stream').toBe(0);
  }
  expect(usageChunks.length).toBeLessThanOrEqual(1);
  if (usageChunks.length === 1) expect(chunks[chunks.length - 1]?.choices).toEqual([]);
}
