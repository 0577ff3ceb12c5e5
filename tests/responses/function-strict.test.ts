/**
 * The `strict` of a Responses function tool (src/responses/function-strict.ts): the client's
 * when it said, else the Responses default, true, for a schema that meets strict mode's rules,
 * and best effort (false) for one that does not, as OpenAI falls back; sent upstream and echoed.
 */
import { describe, expect, it } from 'vitest';
import { echoRequest } from '../../src/responses/echo-request.js';
import { functionStrict } from '../../src/responses/function-strict.js';
import { readInputItems } from '../../src/responses/read-input-items.js';
import { resolveInputItems } from '../../src/responses/resolve-input-items.js';
import { responsesRequestSchema } from '../../src/responses/responses-request.js';
import { toChatRequest } from '../../src/responses/to-chat-request.js';

const strictObject = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false };
const looseObject = { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] };

describe('functionStrict', () => {
  it.each<[string, boolean | null | undefined, unknown, boolean]>([
    ['the client said true', true, looseObject, true],
    ['the client said false', false, strictObject, false],
    ['no strict, a strict schema', undefined, strictObject, true],
    ['strict: null, a strict schema', null, strictObject, true],
    ['no strict, an optional property', undefined, looseObject, false],
    ['no strict, additionalProperties missing', undefined, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, false],
    ['no strict, no properties at all', undefined, { type: 'object', properties: {}, required: [], additionalProperties: false }, true],
    ['no strict, no parameters', undefined, undefined, false],
    ['no strict, a root that is not an object', undefined, { type: 'string' }, false],
    [
      'no strict, a nested object that is strict',
      undefined,
      { type: 'object', properties: { opts: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false } }, required: ['opts'], additionalProperties: false },
      true,
    ],
    [
      'no strict, a nested object that is not',
      undefined,
      { type: 'object', properties: { opts: { type: 'object', properties: { x: { type: 'number' } } } }, required: ['opts'], additionalProperties: false },
      false,
    ],
    [
      'no strict, array items and anyOf checked too',
      undefined,
      { type: 'object', properties: { list: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object', properties: {} }] } } }, required: ['list'], additionalProperties: false },
      false,
    ],
    [
      'no strict, $defs checked too',
      undefined,
      { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, required: ['a'], additionalProperties: false, $defs: { A: { type: 'object', properties: { b: { type: 'string' } } } } },
      false,
    ],
  ])('%s', (_name, strict, parameters, expected) => {
    expect(functionStrict(strict, parameters)).toBe(expected);
  });

  it('takes a schema deeper than any real one for a loose one, without overflowing', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i += 1) schema = { type: 'object', properties: { a: schema }, required: ['a'], additionalProperties: false };
    expect(functionStrict(undefined, schema)).toBe(false);
  });
});

describe('strict on /v1/responses: sent and echoed', () => {
  const tools = [
    { type: 'function', name: 'read', parameters: strictObject },
    { type: 'function', name: 'grep', parameters: looseObject },
    { type: 'function', name: 'write', parameters: looseObject, strict: true },
    { type: 'function', name: 'edit', parameters: strictObject, strict: false },
    { type: 'namespace', name: 'mcp__fs__', tools: [{ type: 'function', name: 'stat', parameters: strictObject }] },
    { type: 'web_search' },
  ];
  const request = responsesRequestSchema.parse({ model: 'm', input: 'x', tools });

  it('each chat function carries the strict decided for it', () => {
    const chat = toChatRequest(request, resolveInputItems(readInputItems([{ role: 'user', content: 'x' }]), () => undefined)).chat;
    expect(chat.tools?.map((tool) => [tool.function.name, tool.function.strict])).toEqual([
      ['read', true],
      ['grep', false],
      ['write', true],
      ['edit', false],
      ['mcp__fs__stat', true],
    ]);
  });

  it('the echo is the tools as sent, each function with its strict', () => {
    expect(echoRequest(request).tools).toEqual([
      { type: 'function', name: 'read', parameters: strictObject, strict: true },
      { type: 'function', name: 'grep', parameters: looseObject, strict: false },
      { type: 'function', name: 'write', parameters: looseObject, strict: true },
      { type: 'function', name: 'edit', parameters: strictObject, strict: false },
      { type: 'namespace', name: 'mcp__fs__', tools: [{ type: 'function', name: 'stat', parameters: strictObject, strict: true }] },
      { type: 'web_search' },
    ]);
  });

  it('the echo keeps the key order as sent, strict last, and an own __proto__ key as a key', () => {
    const sent = JSON.parse('{"type":"function","name":"f","__proto__":{"polluted":"yes"},"parameters":{"type":"object"}}') as Record<string, unknown>;
    const echoed = echoRequest(responsesRequestSchema.parse({ model: 'm', input: 'x', tools: [sent] })).tools[0];
    expect(JSON.stringify(echoed)).toBe('{"type":"function","name":"f","__proto__":{"polluted":"yes"},"parameters":{"type":"object"},"strict":false}');
    expect(Object.getPrototypeOf(echoed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
