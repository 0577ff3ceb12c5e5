/**
 * Clean chunks → Responses events: the exact sequences for text, reasoning, tool calls,
 * refusal, a cut answer and a failure; the stream rules on every generic fixture; the same
 * events whatever the upstream bytes' split; and the openai SDK's own stream accumulator
 * reading svir's events (its `finalResponse()`).
 */
import OpenAI from 'openai';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CleanChunk, FinishReason } from '../../src/normalize/clean-chunk.js';
import {
  createResponsesTranslator,
  type ResponsesOutputKind,
  type ResponsesOutputs,
  type ResponsesTranslator,
} from '../../src/responses/create-responses-translator.js';
import { echoRequest } from '../../src/responses/echo-request.js';
import { encodeResponsesEvent } from '../../src/responses/encode-responses-event.js';
import type { ResponsesEvent } from '../../src/responses/responses-event.js';
import { reasoningFormOf } from '../../src/responses/reasoning-form.js';
import { responsesRequestSchema } from '../../src/responses/responses-request.js';
import type { ToolOrigin } from '../../src/responses/to-chat-tools.js';
import { loadFixtures, runLoadedFixture, splitAtSeededOffsets } from '../helpers/replay-fixture.js';
import { expectResponsesStream } from './expect-responses-stream.js';
import { field } from './wire-event.js';
import { cleanChunkMaker } from '../helpers/clean-chunk-maker.js';

const NOW = 1_750_000_000_000;

type Events = ResponsesTranslator<ResponsesEvent[]>;
type Maker = <K extends ResponsesOutputKind>(output: K) => ResponsesTranslator<ResponsesOutputs[K]>;

/** Each events translator's maker, so that a test's chunks can be run again through a twin of another output. */
const makers = new WeakMap<Events, Maker>();

function translator(
  origins: ReadonlyMap<string, ToolOrigin> = new Map(),
  reasoningField = 'reasoning_content',
  request: Record<string, unknown> = { input: 'x' },
): Events {
  const parsed = responsesRequestSchema.parse({ model: 'client-model', ...request });
  const make: Maker = (output) => {
    const counters = { msg: 0, rs: 0, fc: 0 };
    return createResponsesTranslator(
      { id: 'resp_1', model: 'client-model', echo: echoRequest(parsed), origins, reasoningField, reasoningForm: reasoningFormOf(parsed) },
      { makeItemId: (kind) => `${kind}_${++counters[kind]}`, now: () => NOW },
      output,
    );
  };
  const t = make('events');
  makers.set(t, make);
  return t;
}

function twin<K extends ResponsesOutputKind>(t: Events, output: K): ResponsesTranslator<ResponsesOutputs[K]> {
  const make = makers.get(t);
  if (make === undefined) throw new Error('not made by translator()');
  return make(output);
}

function encodeAll(events: readonly ResponsesEvent[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/**
 * The same chunks through the text output (the stream's bytes, hand-encoded deltas) and the
 * fold (no events, stream: false): the text is the events' JSON.stringify bytes, and all three
 * end with the same response.
 */
function expectSameInEveryMode(
  t: Events,
  chunks: readonly CleanChunk[],
  events: readonly ResponsesEvent[],
  failure?: { code: string | null; message: string },
): void {
  const text = twin(t, 'text');
  let wire = '';
  for (const c of chunks) wire += text.push(c);
  wire += failure === undefined ? text.finish() : text.fail(failure);
  expect(wire).toBe(encodeAll(events));
  // One read's chunks at once (the stream's sender) give the same text.
  const batch = twin(t, 'text');
  expect(batch.pushAll(chunks) + (failure === undefined ? batch.finish() : batch.fail(failure))).toBe(wire);
  const folded = twin(t, 'fold');
  for (const c of chunks) folded.push(c);
  if (failure === undefined) folded.finish();
  else folded.fail(failure);
  expect(folded.response()).toEqual(t.response());
  expect(text.response()).toEqual(t.response());
  // The final response's JSON (what the store counts, what stream: false sends) is its JSON.stringify.
  for (const each of [t, text, folded]) expect(each.responseJson()).toBe(JSON.stringify(each.response()));
}

const { chunk, usage: usageChunk } = cleanChunkMaker({ id: 'chatcmpl-1', model: 'client-model' });

function run(chunks: readonly CleanChunk[], t = translator()): ResponsesEvent[] {
  const events = [...chunks.flatMap((c) => t.push(c)), ...t.finish()];
  expectSameInEveryMode(t, chunks, events);
  return events;
}

function shape(events: readonly ResponsesEvent[]): string[] {
  return events.map((event) => event.type.replace(/^response\./, ''));
}

describe('event sequences', () => {
  it('a request with every echoed field: the text output repeats it as the events do, and the final response shares its items (no copy once it is final)', () => {
    const t = translator(new Map([['ns__g', { name: 'g', namespace: 'ns' }]]), 'reasoning_content', {
      input: 'x',
      instructions: 'Be "brief".\nReally.',
      tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'function', name: 'weather' },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.5,
      max_output_tokens: 64,
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      reasoning: { effort: 'high', summary: 'auto' },
      metadata: { trace: 'ünï' },
      previous_response_id: 'resp_0',
      truncation: 'disabled',
      user: 'u',
      safety_identifier: 's',
      prompt_cache_key: 'k',
    });
    const events = run(
      [
        chunk({ role: 'assistant', reasoning_content: 'think' }),
        chunk({ content: 'text' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'ns__g', arguments: '{"a":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
        chunk({}, 'tool_calls'),
        usageChunk({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
      ],
      t,
    );
    expect(field(events.at(-1), 'response')).toMatchObject({ instructions: 'Be "brief".\nReally.', metadata: { trace: 'ünï' }, user: 'u', usage: { total_tokens: 7 } });
    expect(t.response().output[0]).toBe(t.response().output[0]);
  });

  it('text: one message item with one output_text part', () => {
    const events = run([chunk({ role: 'assistant' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop')]);
    expect(shape(events)).toEqual([
      'created',
      'in_progress',
      'output_item.added',
      'content_part.added',
      'output_text.delta',
      'output_text.delta',
      'output_text.done',
      'content_part.done',
      'output_item.done',
      'completed',
    ]);
    expectResponsesStream(events);
    expect(events[2]).toEqual({
      type: 'response.output_item.added',
      sequence_number: 2,
      output_index: 0,
      item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    });
    expect(events[4]).toEqual({
      type: 'response.output_text.delta',
      sequence_number: 4,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Hel',
      logprobs: [],
    });
    const done = events[8];
    expect(field(done, 'item')).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
    });
    const completed = field(events[9], 'response');
    expect(completed).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: NOW / 1000,
      completed_at: NOW / 1000,
      status: 'completed',
      model: 'client-model',
      error: null,
      incomplete_details: null,
      tool_choice: 'auto',
      parallel_tool_calls: true,
      store: true,
      text: { format: { type: 'text' } },
    });
    expect(completed).not.toHaveProperty('usage');
  });

  const REASONING_THEN_TEXT = [chunk({ role: 'assistant', reasoning_content: 'Think' }), chunk({ reasoning_content: 'ing' }), chunk({ content: 'Hi' }), chunk({}, 'stop')];
  const MESSAGE_EVENTS = ['output_item.added', 'content_part.added', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done', 'completed'];

  it.each<[string, Record<string, unknown>]>([
    ['no reasoning field', {}],
    ['reasoning without a summary', { reasoning: { effort: 'high' } }],
    ['summary null', { reasoning: { summary: null } }],
  ])('reasoning, %s asked: the raw reasoning as reasoning_text content only, the summary empty (as vLLM and llama.cpp send it)', (_, asked) => {
    const t = translator(new Map(), 'reasoning_content', { input: 'x', ...asked });
    const events = run(REASONING_THEN_TEXT, t);
    expect(shape(events)).toEqual([
      'created',
      'in_progress',
      'output_item.added',
      'content_part.added',
      'reasoning_text.delta',
      'reasoning_text.delta',
      'reasoning_text.done',
      'content_part.done',
      'output_item.done',
      ...MESSAGE_EVENTS,
    ]);
    expectResponsesStream(events);
    expect(events[3]).toMatchObject({ item_id: 'rs_1', output_index: 0, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    expect(t.response().output[0]).toEqual({ id: 'rs_1', type: 'reasoning', status: 'completed', summary: [], content: [{ type: 'reasoning_text', text: 'Thinking' }] });
  });

  it.each<[string, Record<string, unknown>]>([
    ['summary auto (Codex, pi)', { summary: 'auto' }],
    ['summary detailed with an effort', { effort: 'low', summary: 'detailed' }],
    ['the older generate_summary', { generate_summary: 'concise' }],
  ])('reasoning, %s: the reasoning text as the summary only, the content empty', (_, reasoning) => {
    const t = translator(new Map(), 'reasoning_content', { input: 'x', reasoning });
    const events = run(REASONING_THEN_TEXT, t);
    expect(shape(events)).toEqual([
      'created',
      'in_progress',
      'output_item.added',
      'reasoning_summary_part.added',
      'reasoning_summary_text.delta',
      'reasoning_summary_text.delta',
      'reasoning_summary_text.done',
      'reasoning_summary_part.done',
      'output_item.done',
      ...MESSAGE_EVENTS,
    ]);
    expectResponsesStream(events);
    expect(events[3]).toMatchObject({ item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } });
    expect(t.response().output[0]).toEqual({ id: 'rs_1', type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Thinking' }], content: [] });
  });

  it('reads reasoning under the configured reasoning.field', () => {
    const t = translator(new Map(), 'thoughts');
    run([chunk({ role: 'assistant', thoughts: 'T' }), chunk({ content: 'A' }), chunk({}, 'stop')], t);
    expect(t.response().output.map((item) => item.type)).toEqual(['reasoning', 'message']);
  });

  it('tool calls: one function_call item per call, namespaced names split back, usage mapped', () => {
    const t = translator(new Map([['multi_agent_v1__close_agent', { name: 'close_agent', namespace: 'multi_agent_v1' }]]));
    const events = run(
      [
        chunk({ role: 'assistant' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'multi_agent_v1__close_agent', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        usageChunk({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, completion_tokens_details: { reasoning_tokens: 2 }, prompt_tokens_details: { cached_tokens: 4 } }),
      ],
      t,
    );
    expect(shape(events)).toEqual([
      'created',
      'in_progress',
      'output_item.added',
      'function_call_arguments.delta',
      'function_call_arguments.delta',
      'function_call_arguments.done',
      'output_item.done',
      'output_item.added',
      'function_call_arguments.delta',
      'function_call_arguments.done',
      'output_item.done',
      'completed',
    ]);
    expectResponsesStream(events);
    expect(field(events[2], 'item')).toEqual({ id: 'fc_1', type: 'function_call', status: 'in_progress', call_id: 'call_a', name: 'weather', arguments: '' });
    expect(events[5]).toMatchObject({ item_id: 'fc_1', output_index: 0, name: 'weather', arguments: '{"city":"Paris"}' });
    expect(field(events[10], 'item')).toEqual({
      id: 'fc_2',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_b',
      name: 'close_agent',
      namespace: 'multi_agent_v1',
      arguments: '{}',
    });
    expect(t.response().usage).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens_details: { reasoning_tokens: 2 },
    });
  });

  it('text then refusal: two parts of one message', () => {
    const t = translator();
    const events = run([chunk({ role: 'assistant', content: 'I ' }), chunk({ refusal: 'cannot' }), chunk({}, 'stop')], t);
    expectResponsesStream(events);
    expect(shape(events)).toContain('refusal.delta');
    expect(t.response().output).toEqual([
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [
          { type: 'output_text', text: 'I ', annotations: [] },
          { type: 'refusal', refusal: 'cannot' },
        ],
      },
    ]);
  });

  it.each<[FinishReason, string]>([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ])('finish %s → response.incomplete with incomplete_details %s, the cut item incomplete', (finish, reason) => {
    const events = run([chunk({ role: 'assistant', content: 'Once upon' }), chunk({}, finish)]);
    expectResponsesStream(events);
    const last = events[events.length - 1];
    expect(last?.type).toBe('response.incomplete');
    expect(field(last, 'response')).toMatchObject({ status: 'incomplete', incomplete_details: { reason }, output: [{ status: 'incomplete' }] });
    expect(field(last, 'response')).not.toHaveProperty('completed_at');
  });

  it('a failure after the first event: open items close as incomplete, then response.failed with the error', () => {
    const t = translator();
    const failure = { code: 'context_length_exceeded', message: 'maximum context length' };
    const events = [...t.push(chunk({ role: 'assistant', content: 'Hal' })), ...t.fail(failure)];
    expectResponsesStream(events);
    expectSameInEveryMode(t, [chunk({ role: 'assistant', content: 'Hal' })], events, failure);
    expect(shape(events).slice(-4)).toEqual(['output_text.done', 'content_part.done', 'output_item.done', 'failed']);
    expect(field(events[events.length - 1], 'response')).toMatchObject({
      status: 'failed',
      error: { code: 'context_length_exceeded', message: 'maximum context length' },
      output: [{ type: 'message', status: 'incomplete' }],
    });
    expect(t.push(chunk({ content: 'late' }))).toEqual([]);
    expect(t.finish()).toEqual([]);
    expect(t.fail(failure)).toEqual([]);
    const text = twin(t, 'text');
    text.push(chunk({ role: 'assistant', content: 'Hal' }));
    text.fail(failure);
    expect(text.push(chunk({ content: 'late' }))).toBe('');
    expect(text.fail(failure)).toBe('');
  });

  it('an answer with nothing in it is still a whole response', () => {
    const events = run([chunk({ role: 'assistant' }), chunk({}, 'stop')]);
    expect(shape(events)).toEqual(['created', 'in_progress', 'completed']);
    expectResponsesStream(events);
  });

  it.each([{}, { reasoning: { summary: 'auto' } }])('every delta kind is encoded as JSON.stringify would, with text that needs escaping (request %j)', (asked) => {
    const t = translator(new Map([['ns__f', { name: 'f', namespace: 'ns' }]]), 'reasoning_content', { input: 'x', ...asked });
    const events = run([
      chunk({ role: 'assistant', reasoning_content: 'a "q"\n\u2028 é' }),
      chunk({ content: '</script>\t"x"' }),
      chunk({ refusal: 'no\\' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_"1"', type: 'function', function: { name: 'ns__f', arguments: '{"a":"\\n"}' } }] }),
      chunk({}, 'tool_calls'),
    ], t);
    const kinds = new Set<string>(events.map((event) => event.type));
    const reasoningDelta = 'reasoning' in asked ? 'response.reasoning_summary_text.delta' : 'response.reasoning_text.delta';
    for (const kind of [reasoningDelta, 'response.output_text.delta', 'response.refusal.delta', 'response.function_call_arguments.delta']) {
      expect(kinds.has(kind), kind).toBe(true);
    }
    // run() has compared the text output (deltas written without event objects) with these.
    for (const event of events) expect(encodeResponsesEvent(event)).toBe(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  });

  it('the text of a stream is the same whichever chunks come in one read', () => {
    const chunks = [
      chunk({ role: 'assistant', reasoning_content: 'r1' }),
      chunk({ reasoning_content: 'r2' }),
      chunk({ content: 'a' }),
      chunk({ content: 'b' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }),
      chunk({}, 'tool_calls'),
    ];
    const t = translator();
    const wire = encodeAll(run(chunks, t));
    for (const size of [2, 3, 5]) {
      const text = twin(t, 'text');
      let out = '';
      for (let i = 0; i < chunks.length; i += size) out += text.pushAll(chunks.slice(i, i + size));
      expect(out + text.finish(), `reads of ${size}`).toBe(wire);
    }
  });

  it('each event is one `event:` line and one `data:` line', () => {
    const [created] = run([chunk({ role: 'assistant', content: 'a\nb' }), chunk({}, 'stop')]);
    if (created === undefined) throw new Error('no event');
    const text = encodeResponsesEvent(created);
    expect(text.startsWith('event: response.created\ndata: {')).toBe(true);
    expect(text.endsWith('}\n\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(4);
  });
});

const fixtures = loadFixtures(fileURLToPath(new URL('../fixtures/generic/', import.meta.url)));
const SEEDS = Array.from({ length: 12 }, (_, i) => 7 + i * 104_729);

function eventsOf(pieces: readonly Uint8Array[] | undefined, fixture: (typeof fixtures)[number]): ResponsesEvent[] {
  const outcome = runLoadedFixture(fixture, pieces);
  const t = translator(new Map(), fixture.spec.ctx?.reasoningField ?? 'reasoning_content');
  const events = outcome.chunks.flatMap((c) => t.push(c));
  const failure = outcome.error === null ? undefined : { code: outcome.error.code, message: outcome.error.message };
  if (failure !== undefined) events.push(...t.fail(failure));
  else events.push(...t.finish());
  // The stream's own bytes (hand-encoded deltas) are these events' JSON.stringify, at every split.
  expectSameInEveryMode(t, outcome.chunks, events, failure);
  return events;
}

describe('every generic fixture through the translator', () => {
  for (const fixture of fixtures) {
    it(`${fixture.name}: keeps the stream rules, and gives the same events at ${SEEDS.length} seeded splits`, () => {
      const whole = eventsOf(undefined, fixture);
      expectResponsesStream(whole);
      // The encoder's fast path for deltas writes exactly what JSON.stringify would.
      for (const event of whole) expect(encodeResponsesEvent(event)).toBe(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      for (const seed of SEEDS) expect(eventsOf(splitAtSeededOffsets(fixture.bytes, seed), fixture), `seed ${seed}`).toEqual(whole);
    });
  }
});

/** The reasoning the clean chunks carried, joined. */
function reasoningOf(chunks: readonly CleanChunk[], key: string): string {
  return chunks.map((c) => c.choices[0]?.delta[key]).filter((text): text is string => typeof text === 'string').join('');
}

describe('reasoning goes out once, in the form the request asked for', () => {
  const withReasoning = fixtures.filter((fixture) => reasoningOf(runLoadedFixture(fixture).chunks, fixture.spec.ctx?.reasoningField ?? 'reasoning_content') !== '');

  it('some generic fixtures carry reasoning', () => {
    expect(withReasoning.length).toBeGreaterThan(3);
  });

  for (const [form, request] of [
    ['content', { input: 'x' }],
    ['summary', { input: 'x', reasoning: { summary: 'auto' } }],
  ] as const) {
    it.each(withReasoning.map((fixture) => [fixture.name, fixture] as const))(`%s, ${form}: a client reading both delta kinds, or both forms of the items, reads each piece once`, (_, fixture) => {
      const key = fixture.spec.ctx?.reasoningField ?? 'reasoning_content';
      const outcome = runLoadedFixture(fixture);
      const t = translator(new Map(), key, request);
      const events = [...outcome.chunks.flatMap((c) => t.push(c)), ...(outcome.error === null ? t.finish() : t.fail({ code: outcome.error.code, message: outcome.error.message }))];
      let deltas = '';
      for (const event of events) {
        if (event.type === 'response.reasoning_summary_text.delta' || event.type === 'response.reasoning_text.delta') deltas += event.delta;
      }
      const reasoning = reasoningOf(outcome.chunks, key);
      expect(deltas).toBe(reasoning);
      let items = '';
      for (const item of t.response().output) if (item.type === 'reasoning') items += [...item.summary, ...item.content].map((part) => part.text).join('');
      expect(items).toBe(reasoning);
      const kinds = new Set(events.map((event) => event.type));
      expect(kinds.has('response.reasoning_summary_text.delta')).toBe(form === 'summary');
      expect(kinds.has('response.reasoning_text.delta')).toBe(form === 'content');
    });
  }
});

describe('the openai SDK reads the events', () => {
  it('responses.stream().finalResponse() accumulates reasoning, text and a call into the final response', async () => {
    const t = translator();
    const events = run([
      chunk({ role: 'assistant', reasoning_content: 'hmm' }),
      chunk({ content: 'Calling.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"c":1}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
    ], t);
    const body = events.map(encodeResponsesEvent).join('');
    const client = new OpenAI({
      apiKey: 'x',
      baseURL: 'http://127.0.0.1:1/v1',
      fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    });
    const seen: string[] = [];
    const stream = client.responses.stream({ model: 'client-model', input: 'x' });
    stream.on('event', (event) => seen.push(event.type));
    const final = await stream.finalResponse();
    expect(seen).toEqual(events.map((event) => event.type));
    expect(final.output).toMatchObject(t.response().output);
    expect(final.usage).toEqual({
      input_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 1 },
      total_tokens: 7,
    });
  });
});
