/**
 * svir (the built program) in front of the real llama.cpp `llama-server` (v0.5.0) over every chat
 * format of tests/real/formats.ts: one tiny model per family (gpt-oss, Qwen3-Coder, GLM-4.6,
 * DeepSeek V3.1, Ministral 3, Llama 3.3), each parsed by that family's parser in llama.cpp. One
 * format at a time: its server (and, for a format that reasons, a second one with
 * `--reasoning-format none`, so that the raw markers reach svir) start before its cases and stop
 * after them.
 *
 * Every answer is read as a strict client reads the clean dialect (readCleanStream): whatever the
 * parser leaves in the stream, the client must see reasoning as reasoning, the answer as content
 * and calls as calls.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeCodeVersion, runClaudeCode, type ClaudeRun } from '../clients/harness/claude-code-cli.js';
import { codexVersion, runCodexExec } from '../clients/harness/codex-cli.js';
import { expectMessagesStream, parseMessagesEvents, type MessagesEvent } from '../messages/expect-messages-stream.js';
import { changesOf, readCleanStream } from '../e2e/backends-rig.js';
import { REAL_FORMATS, type RealFormat } from './formats.js';
import { formatModel, startRealLlamaServer, type RealLlamaServer } from './llama-server.js';
import { askTwoCities, askWeather, sayHi, timeTool, TINY_ANSWER, TINY_REASONING, weatherTool } from './recorded-cases.js';
import { startSvirFront, type SvirFront } from './svir-real.js';

/**
 * Under a grammar the tiny models' logits for the allowed tokens are nearly tied (the wiring
 * decides only its own pieces): llama-server's default sampling (temperature 0.8, a random seed)
 * picked a different one of Codex's tools run to run (write_stdin with a made-up session id once
 * kept Codex going until the 150 s limit). Greedy sampling picks the same every time.
 */
const GREEDY = ['--temp', '0'];

/** Codex's first request is ~22,000 tokens of these models' vocabularies; no request of it is shorter than this. */
const CODEX_PROMPT_TOKENS_AT_LEAST = 20_000;

const tools = [weatherTool, timeTool];
const TOOL_NAMES = ['get_weather', 'get_time'];
const afterResult = [
  ...askWeather,
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
];
/** The suite's tools as the Messages route takes them. */
const anthropicTools = tools.map((tool) => ({ name: tool.function.name, description: tool.function.description, input_schema: tool.function.parameters }));
const anthropicAfterResult = [
  { role: 'user', content: 'What is the weather in Paris?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', unit: 'c' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temperature":21}' }] },
];

interface MessagesBlock {
  type: string;
  /** The text, the thinking, or a tool_use's joined input_json_delta pieces. */
  text: string;
  name?: string;
  id?: string;
}

const blockStartSchema = z.object({
  index: z.number(),
  content_block: z.looseObject({ type: z.string(), name: z.string().optional(), id: z.string().optional() }),
});
const blockDeltaSchema = z.object({
  index: z.number(),
  delta: z.looseObject({ text: z.string().optional(), thinking: z.string().optional(), partial_json: z.string().optional() }),
});
const stopReasonSchema = z.object({ delta: z.looseObject({ stop_reason: z.string().nullable() }) });

/** The blocks of a Messages stream, each one's deltas joined, and its stop_reason. */
function messagesBlocks(events: readonly MessagesEvent[]): { blocks: MessagesBlock[]; stopReason: string | null | undefined } {
  const blocks: MessagesBlock[] = [];
  let stopReason: string | null | undefined;
  for (const event of events) {
    if (event.type === 'content_block_start') {
      const start = blockStartSchema.parse(event);
      const { type, name, id } = start.content_block;
      blocks[start.index] = { type, text: '', ...(name === undefined ? {} : { name }), ...(id === undefined ? {} : { id }) };
    } else if (event.type === 'content_block_delta') {
      const { index, delta } = blockDeltaSchema.parse(event);
      const block = blocks[index];
      if (block !== undefined) block.text += delta.text ?? delta.thinking ?? delta.partial_json ?? '';
    } else if (event.type === 'message_delta') {
      stopReason = stopReasonSchema.parse(event).delta.stop_reason;
    }
  }
  return { blocks, stopReason };
}

const messageSchema = z.object({
  content: z.array(
    z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      thinking: z.string().optional(),
      id: z.string().optional(),
      name: z.string().optional(),
      input: z.unknown().optional(),
    }),
  ),
  stop_reason: z.string().nullable(),
});

const chatCompletionSchema = z.object({
  choices: z.array(
    z.object({
      message: z.looseObject({
        content: z.string().nullable(),
        tool_calls: z.array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
      }),
      finish_reason: z.string(),
    }),
  ),
});

/** Two calls as a client gets them: distinct ids, offered names, each one's arguments whole JSON. */
function expectTwoCalls(calls: readonly { id: string; name: string; arguments: string }[], context: string): void {
  expect(calls, context).toHaveLength(2);
  expect(new Set(calls.map((call) => call.id)).size, context).toBe(2);
  for (const call of calls) {
    expect(call.id).not.toBe('');
    expect(TOOL_NAMES).toContain(call.name);
    expect(JSON.parse(call.arguments), call.arguments).toBeTypeOf('object');
  }
}

function claudeTranscript(run: ClaudeRun): string {
  return `exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}\n--- stdout\n${run.stdout.slice(-6000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
}

/** Markup of any family that must never reach a client as text. */
const MARKERS = /<\|channel\|>|<\|message\|>|<\|start\|>|<\|end\|>|<\/?think>|\[\/?THINK\]|\[TOOL_CALLS\]|\[ARGS\]|<tool_call>|<function=|<arg_key>|<｜tool|<\|eot_id\|>/;

describe.each(REAL_FORMATS)('$name', (format: RealFormat) => {
  let server: RealLlamaServer;
  let raw: RealLlamaServer | undefined;
  let svir: SvirFront;
  const model = `tiny-${format.name}`;
  const rawModel = `${model}-raw`;
  const reasoning = format.reasons ? TINY_REASONING : '';

  beforeAll(async () => {
    [server, raw] = await Promise.all([
      // 64k: Codex CLI's first request is ~22,000 of the tiny models' tokens. --temp 0: greedy
      // sampling for a request that names no temperature (Codex and Claude Code send none), so
      // which of an agent's tools the model calls is fixed (docs/llamacpp-real.md).
      startRealLlamaServer(formatModel(format.name), ['-c', '65536', ...GREEDY]),
      format.reasons ? startRealLlamaServer(formatModel(format.name), ['--reasoning-format', 'none']) : Promise.resolve(undefined),
    ]);
    svir = await startSvirFront([
      { name: `llama-${format.name}`, type: 'llamacpp', url: `${server.url}/v1`, models: [model] },
      ...(raw === undefined ? [] : [{ name: `llama-${format.name}-raw`, type: 'llamacpp', url: `${raw.url}/v1`, models: [rawModel] }]),
    ]);
  });

  afterAll(async () => {
    await svir?.process.stop();
    await Promise.all([server?.stop(), raw?.stop()]);
  });

  const chat = (body: Record<string, unknown>) => svir.chat({ model, seed: 42, ...body });

  it('streams reasoning as reasoning_content and the answer as content, no markup', async () => {
    const answer = await chat({ stream: true, messages: sayHi, max_tokens: 60 });
    const clean = readCleanStream(answer, model);
    expect(clean.reasoning).toBe(reasoning);
    expect(clean.content).toBe(TINY_ANSWER);
    expect(clean.finish).toBe('stop');
    expect(clean.toolCalls).toEqual([]);
    expect(answer.text).not.toMatch(MARKERS);
  });

  it('folds stream: false into one chat.completion', async () => {
    const answer = await chat({ messages: sayHi, max_tokens: 60 });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.json() as { choices: { message: Record<string, unknown>; finish_reason: string }[] };
    expect(body.choices[0]?.message).toEqual({
      role: 'assistant',
      content: TINY_ANSWER,
      ...(format.reasons ? { reasoning_content: TINY_REASONING } : {}),
      refusal: null,
    });
    expect(body.choices[0]?.finish_reason).toBe('stop');
  });

  it.runIf(format.reasons)('splits the raw reasoning markers of --reasoning-format none out of content', async () => {
    const answer = await svir.chat({ model: rawModel, seed: 42, stream: true, messages: sayHi, max_tokens: 60 });
    const clean = readCleanStream(answer, rawModel);
    expect(clean.reasoning).toBe(TINY_REASONING);
    expect(clean.content.trim()).toBe(TINY_ANSWER);
    expect(answer.text).not.toMatch(MARKERS);
  });

  it(`tool_choice auto: ${format.callsOnItsOwn ? 'a call in the family\'s syntax, as a call' : 'an answer (the template shows no tools)'}`, async () => {
    const answer = await chat({ stream: true, messages: askWeather, tools, max_tokens: 200 });
    const clean = readCleanStream(answer, model);
    expect(clean.reasoning).toBe(reasoning);
    expect(answer.text).not.toMatch(MARKERS);
    if (format.callsOnItsOwn) {
      expect(clean.toolCalls).toHaveLength(1);
      expect(TOOL_NAMES).toContain(clean.toolCalls[0]?.name);
      expect(() => JSON.parse(clean.toolCalls[0]?.arguments ?? '')).not.toThrow();
      expect(clean.finish).toBe('tool_calls');
    } else {
      expect(clean.toolCalls).toEqual([]);
      expect(clean.content).toBe(TINY_ANSWER);
      expect(clean.finish).toBe('stop');
    }
  });

  it('tool_choice required: one whole call, finish tool_calls', async () => {
    const answer = await chat({ stream: true, messages: askWeather, tools, tool_choice: 'required', max_tokens: 200 });
    const clean = readCleanStream(answer, model);
    expect(answer.text).not.toMatch(MARKERS);
    expect(clean.toolCalls.length).toBeGreaterThanOrEqual(1);
    for (const call of clean.toolCalls) {
      expect(TOOL_NAMES).toContain(call.name);
      expect(() => JSON.parse(call.arguments)).not.toThrow();
    }
    expect(clean.finish).toBe('tool_calls');
  });

  it('a named tool_choice: a call of that tool', async () => {
    const answer = await chat({ stream: true, messages: askWeather, tools, tool_choice: { type: 'function', function: { name: 'get_time' } }, max_tokens: 200 });
    const clean = readCleanStream(answer, model);
    expect(answer.text).not.toMatch(MARKERS);
    expect(clean.toolCalls.map((call) => call.name)).toEqual(['get_time']);
    expect(JSON.parse(clean.toolCalls[0]?.arguments ?? '')).toHaveProperty('tz');
    expect(clean.finish).toBe('tool_calls');
  });

  // "Paris and Berlin" asks the models whose parser takes two calls for a second one (DeepSeek
  // V3.1's template shows no tools: it calls under required only, after its answer).
  const twoCallsChoice = format.twoCalls === 'required' ? { tool_choice: 'required' } : {};
  const twoCallsContent = format.twoCalls === 'required' ? TINY_ANSWER : '';

  it.runIf(format.twoCalls !== 'never')(`two calls in one turn (tool_choice ${format.twoCalls}), streamed: indexes 0 and 1, two ids, whole arguments`, async () => {
    const answer = await chat({ stream: true, messages: askTwoCities, tools, max_tokens: 200, ...twoCallsChoice });
    // readCleanStream holds the indexes to 0 then 1, each call's id and name on its first piece.
    const clean = readCleanStream(answer, model);
    expect(answer.text).not.toMatch(MARKERS);
    expectTwoCalls(clean.toolCalls, answer.text);
    expect(clean.reasoning).toBe(reasoning);
    expect(clean.content).toBe(twoCallsContent);
    expect(clean.finish).toBe('tool_calls');
  });

  it.runIf(format.twoCalls !== 'never')('two calls in one turn, stream: false: both in one message, finish tool_calls', async () => {
    const answer = await chat({ messages: askTwoCities, tools, max_tokens: 200, ...twoCallsChoice });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).not.toMatch(MARKERS);
    const [choice] = chatCompletionSchema.parse(answer.json()).choices;
    const calls = (choice?.message.tool_calls ?? []).map((call) => ({ id: call.id, ...call.function }));
    expectTwoCalls(calls, answer.text);
    expect(choice?.message.content ?? '').toBe(twoCallsContent);
    expect(choice?.finish_reason).toBe('tool_calls');
  });

  it.runIf(format.twoCalls !== 'never')('two calls asked with parallel_tool_calls false: the grammar refuses the second, one call', async () => {
    const answer = await chat({ stream: true, messages: askTwoCities, tools, max_tokens: 200, parallel_tool_calls: false, ...twoCallsChoice });
    const clean = readCleanStream(answer, model);
    expect(answer.text).not.toMatch(MARKERS);
    expect(clean.toolCalls).toHaveLength(1);
    expect(clean.finish).toBe('tool_calls');
  });

  it('a tool result sent back: the model answers', async () => {
    const answer = await chat({ stream: true, messages: afterResult, tools, max_tokens: 200 });
    const clean = readCleanStream(answer, model);
    expect(clean.toolCalls).toEqual([]);
    expect(clean.content).toBe(TINY_ANSWER);
    expect(clean.finish).toBe('stop');
  });

  it('max_tokens inside a required call: finish length, never tool_calls', async () => {
    const answer = await chat({ stream: true, messages: askWeather, tools, tool_choice: 'required', max_tokens: format.cutCallAt });
    const clean = readCleanStream(answer, model);
    expect(answer.text).not.toMatch(MARKERS);
    expect(clean.finish).toBe('length');
    // The call as far as it came (a whole one would have let the model end by itself).
    expect(clean.toolCalls.length).toBeLessThanOrEqual(1);
    for (const call of clean.toolCalls) expect(TOOL_NAMES).toContain(call.name);
  });

  it('the Responses route: reasoning item, message, usage; and a required call as a function_call item', async () => {
    const client = new OpenAI({ baseURL: `${svir.process.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const plain = await client.responses.create({ model, input: 'Say hi.', max_output_tokens: 60 });
    expect(plain.status).toBe('completed');
    expect(plain.output_text).toBe(TINY_ANSWER);
    const reasoningItems = plain.output.filter((item) => item.type === 'reasoning');
    expect(reasoningItems).toHaveLength(format.reasons ? 1 : 0);
    expect(plain.usage?.total_tokens).toBeGreaterThan(0);

    const called = await client.responses.create({
      model,
      input: 'What is the weather in Paris?',
      tools: tools.map((tool) => ({ type: 'function' as const, name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters, strict: false })),
      tool_choice: 'required',
      max_output_tokens: 200,
    });
    const calls = called.output.filter((item) => item.type === 'function_call');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) {
      expect(TOOL_NAMES).toContain(call.name);
      expect(() => JSON.parse(call.arguments)).not.toThrow();
    }
  });

  it.runIf(format.twoCalls !== 'never')('the Responses route, two calls in one turn: two function_call items', async () => {
    const client = new OpenAI({ baseURL: `${svir.process.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const answer = await client.responses.create({
      model,
      input: askTwoCities[0]?.content ?? '',
      tools: tools.map((tool) => ({ type: 'function' as const, name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters, strict: false })),
      ...(format.twoCalls === 'required' ? { tool_choice: 'required' as const } : {}),
      max_output_tokens: 200,
    });
    expect(answer.status).toBe('completed');
    const calls = answer.output.flatMap((item) => (item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : []));
    expectTwoCalls(calls, JSON.stringify(answer.output));
    expect(answer.output.filter((item) => item.type === 'reasoning')).toHaveLength(format.reasons ? 1 : 0);
  });

  it('the Messages route, streamed: reasoning as a thinking block, then the text, every event in order and no markup', async () => {
    const answer = await svir.post('/v1/messages', { model, max_tokens: 60, stream: true, messages: sayHi });
    expect(answer.status, answer.text).toBe(200);
    const events = parseMessagesEvents(answer.text);
    expectMessagesStream(events);
    const { blocks, stopReason } = messagesBlocks(events);
    expect(blocks).toEqual([...(format.reasons ? [{ type: 'thinking', text: TINY_REASONING }] : []), { type: 'text', text: TINY_ANSWER }]);
    expect(stopReason).toBe('end_turn');
    expect(answer.text).not.toMatch(MARKERS);
  });

  it('the Messages route, stream: false: the same blocks in one message', async () => {
    const answer = await svir.post('/v1/messages', { model, max_tokens: 60, messages: sayHi });
    expect(answer.status, answer.text).toBe(200);
    const message = messageSchema.parse(answer.json());
    expect(message.content).toEqual([
      ...(format.reasons ? [{ type: 'thinking', thinking: TINY_REASONING, signature: '' }] : []),
      { type: 'text', text: TINY_ANSWER },
    ]);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('the Messages route, tool_choice any: a tool_use block, streamed and not, stop_reason tool_use', async () => {
    const body = { model, max_tokens: 200, messages: askWeather, tools: anthropicTools, tool_choice: { type: 'any' } };
    const streamed = await svir.post('/v1/messages', { ...body, stream: true });
    expect(streamed.status, streamed.text).toBe(200);
    const events = parseMessagesEvents(streamed.text);
    expectMessagesStream(events);
    const { blocks, stopReason } = messagesBlocks(events);
    const uses = blocks.filter((block) => block.type === 'tool_use');
    expect(uses.length, streamed.text).toBeGreaterThanOrEqual(1);
    for (const use of uses) {
      expect(TOOL_NAMES).toContain(use.name);
      expect(() => JSON.parse(use.text) as unknown).not.toThrow();
    }
    expect(blocks.filter((block) => block.type === 'thinking').map((block) => block.text)).toEqual(format.reasons ? [TINY_REASONING] : []);
    expect(stopReason).toBe('tool_use');
    expect(streamed.text).not.toMatch(MARKERS);

    const whole = await svir.post('/v1/messages', body);
    expect(whole.status, whole.text).toBe(200);
    const message = messageSchema.parse(whole.json());
    const wholeUses = message.content.filter((block) => block.type === 'tool_use');
    expect(wholeUses.length).toBeGreaterThanOrEqual(1);
    for (const use of wholeUses) {
      expect(TOOL_NAMES).toContain(use.name);
      expect(typeof use.input).toBe('object');
    }
    expect(message.stop_reason).toBe('tool_use');
  });

  it.runIf(format.twoCalls !== 'never')('the Messages route, two calls in one turn: two tool_use blocks, streamed and not, stop_reason tool_use', async () => {
    const body = {
      model,
      max_tokens: 200,
      messages: askTwoCities,
      tools: anthropicTools,
      ...(format.twoCalls === 'required' ? { tool_choice: { type: 'any' } } : {}),
    };
    const streamed = await svir.post('/v1/messages', { ...body, stream: true });
    expect(streamed.status, streamed.text).toBe(200);
    const events = parseMessagesEvents(streamed.text);
    expectMessagesStream(events);
    const { blocks, stopReason } = messagesBlocks(events);
    const uses = blocks.filter((block) => block.type === 'tool_use').map((block) => ({ id: block.id ?? '', name: block.name ?? '', arguments: block.text }));
    expectTwoCalls(uses, streamed.text);
    expect(stopReason).toBe('tool_use');
    expect(streamed.text).not.toMatch(MARKERS);

    const whole = await svir.post('/v1/messages', body);
    expect(whole.status, whole.text).toBe(200);
    const message = messageSchema.parse(whole.json());
    const wholeUses = message.content
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input) }));
    expectTwoCalls(wholeUses, whole.text);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('the Messages route, a tool_result sent back: the answer as text, streamed', async () => {
    const answer = await svir.post('/v1/messages', { model, max_tokens: 200, stream: true, messages: anthropicAfterResult, tools: anthropicTools });
    expect(answer.status, answer.text).toBe(200);
    const events = parseMessagesEvents(answer.text);
    expectMessagesStream(events);
    const { blocks, stopReason } = messagesBlocks(events);
    expect(blocks.filter((block) => block.type === 'tool_use')).toEqual([]);
    expect(blocks.filter((block) => block.type === 'text').map((block) => block.text)).toEqual([TINY_ANSWER]);
    expect(stopReason).toBe('end_turn');
    expect(answer.text).not.toMatch(MARKERS);
  });

  it(
    `Claude Code end to end (claude -p, sealed off): ${
      {
        'call-then-answer': 'a call of one of its tools, the result sent back, then the answer',
        answer: 'the answer at once',
        'unknown-tool-fails': 'a call of a tool it lacks, which the parser fails: the error, said once',
      }[format.claudeCode]
    }`,
    { timeout: 200_000 },
    async () => {
      expect(await claudeCodeVersion()).toMatch(/\d+\.\d+\.\d+/);
      // Claude Code counts its ~28,000-token prompt against CLAUDE_CODE_MAX_CONTEXT_TOKENS itself;
      // no retries: a failure shows once instead of ten times.
      const run = await runClaudeCode({
        baseURL: svir.process.url,
        apiKey: 'unused',
        model,
        prompt: 'Say hi.',
        timeoutMs: 150_000,
        contextTokens: 65536,
        maxRetries: 0,
      });
      expect(run.timedOut, claudeTranscript(run)).toBe(false);
      expect(run.strayConnections).toEqual([]);
      if (format.claudeCode === 'unknown-tool-fails') {
        expect(run.exitCode, claudeTranscript(run)).not.toBe(0);
        expect(run.result?.result, claudeTranscript(run)).toContain('failed inside the stream');
        expect(run.result?.result).toContain('does not match the expected peg-native format');
        return;
      }
      expect(run.exitCode, claudeTranscript(run)).toBe(0);
      expect(run.result?.result, claudeTranscript(run)).toBe(TINY_ANSWER);
      const uses = run.assistantBlocks.filter((block) => block.type === 'tool_use');
      const results = run.userBlocks.filter((block) => block.type === 'tool_result');
      expect(uses.length, claudeTranscript(run)).toBe(format.claudeCode === 'call-then-answer' ? 1 : 0);
      expect(results).toHaveLength(uses.length);
      // Each model turn shows its reasoning as a thinking block.
      const thinking = run.assistantBlocks.filter((block) => block.type === 'thinking').map((block) => block.thinking);
      expect(thinking, claudeTranscript(run)).toEqual(format.reasons ? Array<string>(uses.length + 1).fill(TINY_REASONING) : []);
      const texts = run.assistantBlocks.filter((block) => block.type === 'text').map((block) => block.text ?? '');
      expect(texts.join('')).not.toMatch(MARKERS);
    },
  );

  it('x-svir-changes names nothing for a plain answer', async () => {
    expect(changesOf(await chat({ stream: true, messages: sayHi, max_tokens: 60 }))).toEqual([]);
  });

  it(
    `Codex CLI end to end (codex exec, sealed off): its ~22,000-token first request ${
      {
        'call-then-answer': 'gets a call, Codex runs it, then the answer',
        answer: 'gets the answer',
        'template-refuses': 'refused by the template: a 400 that says so',
        'unknown-tool-fails': 'gets a call of a tool Codex lacks, which the parser fails: a 502 that says so',
      }[format.codex]
    }`,
    // Greedy sampling (GREEDY) fixes which of Codex's tools the model calls: no retry.
    { timeout: 200_000 },
    async () => {
      expect(await codexVersion()).toMatch(/^codex-cli \d+\.\d+\.\d+/);
      const run = await runCodexExec({ baseURL: `${svir.process.url}/v1`, apiKey: 'unused', model, prompt: 'Say hi.', timeoutMs: 150_000 });
      const transcript = `exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.timedOut, transcript).toBe(false);
      expect(run.strayConnections).toEqual([]);
      if (format.codex === 'template-refuses' || format.codex === 'unknown-tool-fails') {
        expect(run.exitCode, transcript).not.toBe(0);
        const failed = run.events.find((event) => event.type === 'turn.failed');
        if (format.codex === 'template-refuses') {
          expect(failed?.error?.message, transcript).toContain('chat template refused the conversation');
          expect(failed?.error?.message).toContain('invalid_request');
        } else {
          expect(failed?.error?.message, transcript).toContain('failed inside the stream');
          expect(failed?.error?.message).toContain('does not match the expected peg-native format');
        }
        return;
      }
      expect(run.exitCode, transcript).toBe(0);
      expect(run.events.map((event) => event.type), transcript).toContain('turn.completed');
      expect(run.lastMessage, transcript).toBe(TINY_ANSWER);
      // Two model turns when the first was a call: each shows its reasoning, or, for a format
      // without reasoning, Codex's own count: every request carries its ~22,000-token prompt, and
      // turn.completed sums their input tokens. (Greedy, gpt-oss and Qwen3-Coder call
      // request_user_input with no questions and GLM-4.6 view_image: tools whose use `codex exec`
      // shows as no item at all.)
      const usage = z.object({ input_tokens: z.number() }).safeParse(run.events.find((event) => event.type === 'turn.completed')?.['usage']);
      const turns = format.reasons
        ? run.items.filter((item) => item.type === 'reasoning').length
        : Math.floor((usage.success ? usage.data.input_tokens : 0) / CODEX_PROMPT_TOKENS_AT_LEAST);
      expect(turns, transcript).toBe(format.codex === 'call-then-answer' ? 2 : 1);
    },
  );
});
