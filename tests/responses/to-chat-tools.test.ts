/**
 * toChatTools reads a well-formed function tool field by field, without zod (to-chat-tools.ts):
 * whatever a tool is, the result is the one the schema's reading gives, a chat function or the
 * same 400 naming the tool, at the top level and inside a namespace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { functionStrict } from '../../src/responses/function-strict.js';
import { functionToolSchema, toChatTools } from '../../src/responses/to-chat-tools.js';

/** What the schema's reading (the tool's long way) makes of one tool: its chat function, or the param of the 400. */
function expected(entry: unknown, name: (fnName: string) => string, where: string): { function: Record<string, unknown> } | { refused: string } {
  const parsed = functionToolSchema.safeParse(entry);
  if (!parsed.success) return { refused: where };
  const tool = parsed.data;
  const fn: Record<string, unknown> = { name: name(tool.name) };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (tool.parameters !== null && tool.parameters !== undefined) fn.parameters = tool.parameters;
  fn.strict = functionStrict(tool.strict, tool.parameters);
  return { function: fn };
}

function actual(tools: unknown[]): { function: Record<string, unknown> } | { refused: string } {
  try {
    const out = toChatTools(tools);
    const first = out.tools[0];
    if (first === undefined) throw new Error('no tool');
    return { function: { ...first.function } };
  } catch (err) {
    if (err instanceof SvirError && err.code === 'invalid_request' && typeof err.param === 'string') return { refused: err.param };
    throw err;
  }
}

const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 4 }), fc.constant([]), fc.constant({}));
const schema = fc.oneof(
  fc.constant({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
  fc.constant({ type: 'object', properties: { city: { type: 'string' } } }),
  fc.constant({ constructor: 'x', type: 'object' }),
  fc.constant(Object.create(null) as Record<string, unknown>),
  fc.constant([{ type: 'object' }]),
  // An own __proto__ key, as JSON.parse makes it (the schema's record drops it).
  fc.constant(JSON.parse('{"__proto__":{"x":1},"type":"object"}') as Record<string, unknown>),
);
const toolEntry = fc.record(
  {
    type: fc.oneof(fc.constant('function'), fc.constant('function'), fc.constant('custom'), fc.constant(1)),
    name: fc.oneof(fc.string({ minLength: 0, maxLength: 3 }), fc.constant('x'.repeat(256)), fc.constant('x'.repeat(257)), fc.constant(7), fc.constant(null)),
    description: fc.oneof(fc.string({ maxLength: 5 }), anyValue),
    parameters: fc.oneof(schema, anyValue),
    strict: fc.oneof(fc.boolean(), anyValue),
    extra: anyValue,
  },
  { requiredKeys: ['type'] },
);

describe('toChatTools: a function tool read in place', () => {
  it('gives the chat function or the 400 the schema gives, for any tool', () => {
    fc.assert(
      fc.property(toolEntry, (entry) => {
        const want = expected(entry, (name) => name, 'tools[0]');
        // A tool of another type is dropped or refused by the other readers: only functions compare here.
        if (entry.type !== 'function') return;
        expect(actual([entry])).toEqual(want);
      }),
      { seed: 26, numRuns: 2000 },
    );
  });

  it('does the same inside a namespace, under the flattened name', () => {
    fc.assert(
      fc.property(toolEntry, (entry) => {
        if (entry.type !== 'function') return;
        const want = expected(entry, (name) => `ns__${name}`, 'tools[0].tools[0]');
        expect(actual([{ type: 'namespace', name: 'ns', description: '', tools: [entry] }])).toEqual(want);
      }),
      { seed: 27, numRuns: 1000 },
    );
  });

  it('sends the schema the client gave, key order kept, and strict last', () => {
    const parameters = { type: 'object', properties: { b: { type: 'string' }, a: { type: 'number' } }, required: ['b', 'a'], additionalProperties: false };
    const out = toChatTools([{ type: 'function', name: 'f', parameters, description: 'd', extra: 1 }]);
    expect(JSON.stringify(out.tools)).toBe(`[{"type":"function","function":{"name":"f","description":"d","parameters":${JSON.stringify(parameters)},"strict":true}}]`);
  });
});
