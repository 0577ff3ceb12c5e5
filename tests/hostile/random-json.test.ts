/**
 * Property: whatever JSON a client sends, in whatever field, svir never answers 500 and every
 * refusal is the one error shape. fast-check with a fixed seed builds bodies whose every field
 * is either a plausible value or any JSON value at all (and, now and then, the whole body is
 * any JSON value), plus random extra keys. A body that happens to be valid gets an answer from
 * the fake upstream, which must then be a clean stream or a clean completion.
 */
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { parseCleanStream, readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

const BACKENDS = [
  ['openai', 'm'],
  ['lmstudio', 'lm'],
  ['llamacpp', 'lc'],
  ['vllm', 'vl'],
  ['mlx-lm', 'ml'],
  ['mlx-vlm', 'mv'],
  ['ollama', 'ol'],
  ['azure', 'az'],
] as const;
const MODELS = BACKENDS.map(([, model]) => model);

let upstream: FaultUpstream;
let svir: RunningSvir;
let agent: Agent;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  // One backend of every type on the same fake: each adapter rewrites requests its own way.
  svir = await startSvir({
    backends: BACKENDS.map(([type, model]) => ({
      name: `b-${type}`,
      type,
      url: type === 'azure' ? upstream.origin : upstream.url,
      models: [model],
      vision: true,
      maxQueue: 1_000,
    })),
  });
  agent = new Agent();
});

afterAll(async () => {
  await agent.close();
  await svir.close();
  await upstream.close();
});

/** Strings of any code point, lone surrogates included. */
const anyJson = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });
const anyString = fc.string({ unit: 'binary', maxLength: 24 });

/** Mostly a plausible value (so that the request gets past the first check), else anything. */
function field<T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: anyJson });
}

const toolArb = fc.record(
  {
    type: field(fc.constant('function')),
    function: field(
      fc.record(
        {
          name: field(fc.oneof(fc.constantFrom('get_weather', 'lookup', ''), anyString)),
          description: field(anyString),
          parameters: field(fc.dictionary(anyString, anyJson, { maxKeys: 3 })),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

const contentPart = fc.oneof(
  fc.record({ type: field(fc.constant('text')), text: field(anyString) }, { requiredKeys: [] }),
  fc.record(
    {
      type: field(fc.constant('image_url')),
      image_url: field(fc.record({ url: field(fc.constantFrom('data:image/png;base64,iVBORw0KGgo=', 'http://x/y.png', '')) })),
    },
    { requiredKeys: [] },
  ),
);

const messageArb = fc.record(
  {
    role: field(fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer')),
    content: field(fc.oneof(anyString, fc.array(contentPart, { maxLength: 3 }), fc.constant(null))),
    name: field(anyString),
    tool_call_id: field(anyString),
    tool_calls: field(
      fc.array(
        fc.record({
          id: field(anyString),
          type: field(fc.constant('function')),
          function: field(fc.record({ name: field(anyString), arguments: field(anyString) })),
        }),
        { maxLength: 2 },
      ),
    ),
    reasoning_content: field(anyString),
  },
  { requiredKeys: [] },
);

const bodyArb = fc
  .tuple(
    fc.record(
      {
        model: field(fc.constantFrom(...MODELS)),
        messages: field(fc.array(messageArb, { maxLength: 4 })),
        stream: field(fc.boolean()),
        stream_options: field(fc.record({ include_usage: field(fc.boolean()) }, { requiredKeys: [] })),
        n: field(fc.constantFrom(1, 2)),
        tools: field(fc.array(toolArb, { maxLength: 3 })),
        tool_choice: field(
          fc.oneof(
            fc.constantFrom('none', 'auto', 'required', 'bogus'),
            fc.record({ type: field(fc.constant('function')), function: field(fc.record({ name: field(anyString) })) }),
          ),
        ),
        response_format: field(
          fc.oneof(
            fc.record({ type: field(fc.constantFrom('text', 'json_object', 'json_schema')) }),
            fc.record({
              type: fc.constant('json_schema'),
              json_schema: field(fc.record({ name: field(anyString), schema: field(fc.dictionary(anyString, anyJson)) })),
            }),
          ),
        ),
        reasoning_effort: field(fc.constantFrom('none', 'low', 'medium', 'high', 'xhigh', 'max')),
        max_tokens: field(fc.integer({ min: -5, max: 1_000_000 })),
        max_completion_tokens: field(fc.integer({ min: -5, max: 1_000_000 })),
        temperature: field(fc.double({ min: -1, max: 3, noNaN: true })),
        logprobs: field(fc.boolean()),
        top_logprobs: field(fc.integer({ min: -1, max: 30 })),
        stop: field(fc.oneof(anyString, fc.array(anyString, { maxLength: 4 }))),
        seed: field(fc.integer()),
        user: field(anyString),
        metadata: field(fc.dictionary(anyString, anyString, { maxKeys: 3 })),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 3 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }));

/** A valid request with tools, to which one field at a time gets any JSON value. */
function validBody(): Record<string, unknown> {
  return {
    model: 'm',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ],
    stream: true,
    stream_options: { include_usage: true },
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    max_tokens: 100,
  };
}

/** Every place a client writes a value, top level and nested. */
const FIELD_PATHS: ReadonlyArray<readonly (string | number)[]> = [
  ['model'],
  ['messages'],
  ['messages', 0],
  ['messages', 0, 'role'],
  ['messages', 0, 'content'],
  ['messages', 1, 'content', 0],
  ['messages', 1, 'content', 0, 'type'],
  ['messages', 1, 'content', 0, 'text'],
  ['messages', 1, 'name'],
  ['messages', 1, 'tool_calls'],
  ['stream'],
  ['stream_options'],
  ['stream_options', 'include_usage'],
  ['n'],
  ['tools'],
  ['tools', 0],
  ['tools', 0, 'type'],
  ['tools', 0, 'function'],
  ['tools', 0, 'function', 'name'],
  ['tool_choice', 'function', 'name'],
  ['tools', 0, 'function', 'parameters'],
  ['tool_choice'],
  ['response_format'],
  ['reasoning_effort'],
  ['max_tokens'],
  ['max_completion_tokens'],
  ['temperature'],
  ['logprobs'],
  ['top_logprobs'],
  ['stop'],
  ['seed'],
  ['user'],
  ['metadata'],
  ['parallel_tool_calls'],
  ['reasoning_content'],
];

function setAt(target: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let node: unknown = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    node = Reflect.get(node, key);
  }
  const last = path.at(-1);
  if (typeof node === 'object' && node !== null && last !== undefined) Reflect.set(node, last, value);
}

const oneFieldArb = fc
  .tuple(fc.constantFrom(...FIELD_PATHS), anyJson, fc.boolean(), fc.constantFrom(...MODELS))
  .map(([path, value, stream, model]) => {
    const body = validBody();
    body.stream = stream;
    body.model = model;
    setAt(body, path, value);
    return body;
  });

/** Now and then the whole body is any JSON value: an array, a number, a string, null. */
const requestArb = fc.oneof(
  { weight: 5, arbitrary: oneFieldArb },
  { weight: 4, arbitrary: bodyArb },
  { weight: 1, arbitrary: anyJson },
);

describe('random JSON in every field', () => {
  it('never gets a 500, and every refusal is the one error shape', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (body) => {
        const response = await request(`${svir.url}/v1/chat/completions`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await response.body.text();
        const status = response.statusCode;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(status, text).toBeLessThan(500);
        if (status >= 400) {
          expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
          expect(readErrorBody(text), text).toBeDefined();
          return;
        }
        expect(status).toBe(200);
        const streamed = typeof body === 'object' && body !== null && !Array.isArray(body) && body.stream === true;
        if (streamed) {
          const parsed = parseCleanStream(text);
          expect(parsed.errors).toEqual([]);
          expect(parsed.malformed).toEqual([]);
          expect(parsed.doneLast).toBe(true);
        } else {
          const json: unknown = JSON.parse(text);
          expect(json).toMatchObject({ object: 'chat.completion' });
        }
      }),
      { seed: 0x5eed, numRuns: 800 },
    );
    console.info(`random JSON: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // The run must have reached both sides: refusals and answers.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect(svir.logs.filter((line) => line.includes('svir failed unexpectedly'))).toEqual([]);
  });
});
