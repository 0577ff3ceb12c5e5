/**
 * svir (the built program) in front of a real llama.cpp `llama-server` (v0.5.0, built by
 * scripts/real-llama/setup.sh) serving the tiny hand-wired Qwen3 model: the default model, the
 * tool-aware one, and the default one with `--reasoning-format none` (think tags in content).
 * Every answer is read as a strict client reads the clean dialect (readCleanStream).
 *
 * The model answers every chat with the reasoning "Okay, let me reply briefly" and the answer
 * "Hello! I am a tiny test model for svir."; under a grammar it calls one of the offered tools
 * or writes JSON (see scripts/real-llama/make-tiny-model.py).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { changesOf, expectErrorAnswer, readCleanStream } from '../e2e/backends-rig.js';
import { MODELS, startRealLlamaServer, type RealLlamaServer } from './llama-server.js';
import {
  askWeather,
  overflowing,
  PNG_DATA_URL,
  sayHi,
  timeTool,
  TINY_ANSWER,
  TINY_REASONING,
  verdictFormat,
  weatherTool,
} from './recorded-cases.js';
import { runSvirCheck, startSvirFront, type SvirFront } from './svir-real.js';

let plain: RealLlamaServer;
let toolAware: RealLlamaServer;
let thinkInContent: RealLlamaServer;
/** The default model in a 4096-token context: room for a generation long enough to cut. */
let long: RealLlamaServer;
let svir: SvirFront;

const backends = () => [
  { name: 'llama', type: 'llamacpp', url: `${plain.url}/v1`, models: ['tiny'] },
  { name: 'llama-effort', type: 'llamacpp', url: `${plain.url}/v1`, models: ['tiny-effort'], effortTemplateKey: 'enable_thinking' },
  { name: 'llama-text', type: 'llamacpp', url: `${plain.url}/v1`, models: ['tiny-text'], vision: false },
  { name: 'llama-tools', type: 'llamacpp', url: `${toolAware.url}/v1`, models: ['tiny-tools'] },
  { name: 'llama-think', type: 'llamacpp', url: `${thinkInContent.url}/v1`, models: ['tiny-think'] },
  { name: 'llama-long', type: 'llamacpp', url: `${long.url}/v1`, models: ['tiny-long'] },
  // No models: svir discovers the server's one model (under its path) and what its list says of images.
  { name: 'llama-listed', type: 'llamacpp', url: plain.url },
];

beforeAll(async () => {
  [plain, toolAware, thinkInContent, long] = await Promise.all([
    startRealLlamaServer(MODELS.plain),
    startRealLlamaServer(MODELS.toolAware),
    startRealLlamaServer(MODELS.plain, ['--reasoning-format', 'none']),
    startRealLlamaServer(MODELS.plain, ['-c', '4096', '--metrics']),
  ]);
  svir = await startSvirFront(backends());
});

afterAll(async () => {
  await svir?.process.stop();
  await Promise.all([plain?.stop(), toolAware?.stop(), thinkInContent?.stop(), long?.stop()]);
});

const tools = [weatherTool, timeTool];
const TOOL_NAMES = ['get_weather', 'get_time'];
const CALL_ID = /^[A-Za-z0-9]{32}$/;

describe('plain answers', () => {
  it('streams the reasoning as reasoning_content and the answer as content, with no usage unasked', async () => {
    const answer = await svir.chat({ model: 'tiny', stream: true, messages: sayHi, max_tokens: 60 });
    const clean = readCleanStream(answer, 'tiny');
    expect(clean.reasoning).toBe(TINY_REASONING);
    expect(clean.content).toBe(TINY_ANSWER);
    expect(clean.finish).toBe('stop');
    expect(clean.usage).toBeUndefined();
    expect(clean.toolCalls).toEqual([]);
    expect(answer.headers.get('x-svir-backend')).toBe('llama');
    // The server sends reasoning one token per chunk: svir forwards them as they come.
    expect(clean.deltaKinds.filter((kind) => kind === 'reasoning_content').length).toBeGreaterThan(3);
    // The server's model path never reaches the client.
    expect(answer.text).not.toContain('.gguf');
    expect(answer.text).not.toContain('timings');
  });

  it('streams usage after the finish when asked, with the server\'s token counts', async () => {
    const clean = readCleanStream(
      await svir.chat({ model: 'tiny', stream: true, stream_options: { include_usage: true }, messages: sayHi, max_tokens: 60 }),
      'tiny',
    );
    expect(clean.content).toBe(TINY_ANSWER);
    expect(clean.usage).toBeDefined();
    expect(clean.usage?.completion_tokens).toBeGreaterThanOrEqual(20);
    expect(clean.usage?.prompt_tokens).toBeGreaterThan(5);
    expect(clean.usage?.total_tokens).toBe((clean.usage?.prompt_tokens ?? 0) + (clean.usage?.completion_tokens ?? 0));
  });

  it('folds stream: false into one chat.completion with reasoning, answer and usage', async () => {
    const answer = await svir.chat({ model: 'tiny', messages: sayHi, max_tokens: 60 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const body = answer.json() as {
      object: string;
      model: string;
      choices: { index: number; message: Record<string, unknown>; finish_reason: string }[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('tiny');
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0]?.message).toEqual({ role: 'assistant', content: TINY_ANSWER, reasoning_content: TINY_REASONING, refusal: null });
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('cuts at max_tokens with finish length', async () => {
    const clean = readCleanStream(await svir.chat({ model: 'tiny', stream: true, messages: sayHi, max_tokens: 5 }), 'tiny');
    expect(clean.finish).toBe('length');
    expect(TINY_REASONING.startsWith(clean.reasoning)).toBe(true);
    expect(clean.content).toBe('');
  });
});

describe('reasoning', () => {
  it('splits <think> tags the server leaves in content (--reasoning-format none) into reasoning_content', async () => {
    const answer = await svir.chat({ model: 'tiny-think', stream: true, messages: sayHi, max_tokens: 60 });
    const clean = readCleanStream(answer, 'tiny-think');
    expect(clean.reasoning).toBe(TINY_REASONING);
    // What followed the reasoning ("\n\n") only separates it from the answer (DESIGN §2).
    expect(clean.content).toBe(TINY_ANSWER);
    expect(answer.text).not.toContain('think>');
    expect(clean.finish).toBe('stop');
  });

  it('sends reasoning_effort none as chat_template_kwargs.enable_thinking=false: the answer alone', async () => {
    const answer = await svir.chat({ model: 'tiny-effort', stream: true, messages: sayHi, max_tokens: 60, reasoning_effort: 'none' });
    const clean = readCleanStream(answer, 'tiny-effort');
    expect(clean.reasoning).toBe('');
    expect(clean.content).toBe(TINY_ANSWER);
    expect(changesOf(answer)).toEqual(['reasoning_effort "none" sent as chat_template_kwargs.enable_thinking=false']);
  });

  it('sends reasoning_effort as it is without effortTemplateKey: this release turns reasoning off for none itself', async () => {
    const answer = await svir.chat({ model: 'tiny', stream: true, messages: sayHi, max_tokens: 60, reasoning_effort: 'none' });
    const clean = readCleanStream(answer, 'tiny');
    expect(clean.reasoning).toBe('');
    expect(clean.content).toBe(TINY_ANSWER);
    expect(changesOf(answer)).toEqual([]);
  });

  it('sends reasoning_effort low as enable_thinking=true: the model reasons', async () => {
    const clean = readCleanStream(
      await svir.chat({ model: 'tiny-effort', stream: true, messages: sayHi, max_tokens: 60, reasoning_effort: 'low' }),
      'tiny-effort',
    );
    expect(clean.reasoning).toBe(TINY_REASONING);
    expect(clean.content).toBe(TINY_ANSWER);
  });
});

describe('tools', () => {
  it('keeps required: the answer its grammar lets come first, then one whole call with the server\'s 32-character id', async () => {
    const clean = readCleanStream(
      await svir.chat({ model: 'tiny', stream: true, messages: askWeather, tools, tool_choice: 'required', max_tokens: 200 }),
      'tiny',
    );
    expect(clean.reasoning).toBe(TINY_REASONING);
    expect(clean.content).toBe(TINY_ANSWER);
    expect(clean.toolCalls).toHaveLength(1);
    const [call] = clean.toolCalls;
    expect(TOOL_NAMES).toContain(call?.name);
    expect(call?.id).toMatch(CALL_ID);
    expect(JSON.parse(call?.arguments ?? '')).toBeTypeOf('object');
    expect(clean.finish).toBe('tool_calls');
  });

  it('sends a named tool_choice as required with only that tool: a call of that tool', async () => {
    const answer = await svir.chat({
      model: 'tiny',
      stream: true,
      messages: askWeather,
      tools,
      tool_choice: { type: 'function', function: { name: 'get_time' } },
      max_tokens: 200,
    });
    const clean = readCleanStream(answer, 'tiny');
    expect(clean.toolCalls.map((call) => call.name)).toEqual(['get_time']);
    expect(JSON.parse(clean.toolCalls[0]?.arguments ?? '')).toEqual({ tz: expect.stringMatching(/^(UTC|CET)$/) });
    expect(clean.finish).toBe('tool_calls');
    expect(changesOf(answer).join(', ')).toMatch(/tool_choice/);
  });

  it('sends no tools under none, so the tool-aware model answers in words instead of raw <tool_call> markup', async () => {
    const answer = await svir.chat({ model: 'tiny-tools', stream: true, messages: askWeather, tools, tool_choice: 'none', max_tokens: 60 });
    const clean = readCleanStream(answer, 'tiny-tools');
    expect(clean.toolCalls).toEqual([]);
    expect(clean.content).toBe(TINY_ANSWER);
    expect(answer.text).not.toContain('tool_call>');
    expect(changesOf(answer)).toEqual(['tool_choice "none": tools not sent']);
  });

  it('passes tool_choice auto to the tool-aware model, which calls straight after its reasoning', async () => {
    const clean = readCleanStream(await svir.chat({ model: 'tiny-tools', stream: true, messages: askWeather, tools, max_tokens: 200 }), 'tiny-tools');
    expect(clean.reasoning).toBe(TINY_REASONING);
    expect(clean.toolCalls).toHaveLength(1);
    expect(TOOL_NAMES).toContain(clean.toolCalls[0]?.name);
    expect(clean.finish).toBe('tool_calls');
  });

  it('sends a tool result back as the template wants it: the tool-aware model then answers', async () => {
    const clean = readCleanStream(
      await svir.chat({
        model: 'tiny-tools',
        stream: true,
        messages: [
          ...askWeather,
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '{"temperature":21}' }] },
        ],
        tools,
        max_tokens: 200,
      }),
      'tiny-tools',
    );
    expect(clean.toolCalls).toEqual([]);
    expect(clean.content).toBe(TINY_ANSWER);
  });

  it('cuts a required call inside its arguments at max_tokens: finish length, never tool_calls', async () => {
    const clean = readCleanStream(
      // Seeded: unseeded, the grammar's choice of get_time (a shorter call) could end within 47 tokens.
      await svir.chat({ model: 'tiny', seed: 42, stream: true, messages: askWeather, tools, tool_choice: 'required', max_tokens: 47 }),
      'tiny',
    );
    expect(clean.finish).toBe('length');
    for (const call of clean.toolCalls) expect(TOOL_NAMES).toContain(call.name);
  });

  it('keeps required through think tags in content (--reasoning-format none)', async () => {
    const clean = readCleanStream(
      await svir.chat({ model: 'tiny-think', stream: true, messages: askWeather, tools, tool_choice: 'required', max_tokens: 200 }),
      'tiny-think',
    );
    expect(clean.reasoning).toBe(TINY_REASONING);
    expect(clean.toolCalls).toHaveLength(1);
    expect(clean.finish).toBe('tool_calls');
  });
});

describe('structured output', () => {
  it('keeps json_schema: the content parses and matches the schema', async () => {
    const clean = readCleanStream(
      await svir.chat({ model: 'tiny', stream: true, messages: [{ role: 'user', content: 'Say hi in one word.' }], response_format: verdictFormat, max_tokens: 60 }),
      'tiny',
    );
    const parsed = JSON.parse(clean.content) as { answer: string; score: number };
    expect(Object.keys(parsed).sort()).toEqual(['answer', 'score']);
    expect(['yes', 'no']).toContain(parsed.answer);
    expect(Number.isInteger(parsed.score) && parsed.score >= 0 && parsed.score <= 9).toBe(true);
    expect(clean.finish).toBe('stop');
  });
});

describe('refusals', () => {
  const image = [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }];

  it('reads the server\'s refusal of an image (no projector) as 400 unsupported_content', async () => {
    const error = expectErrorAnswer(await svir.chat({ model: 'tiny', stream: true, messages: image }), 400, 'unsupported_content');
    expect(error.message).toContain('llama');
  });

  it('refuses an image before sending when the server\'s model list says it has no projector', async () => {
    const error = expectErrorAnswer(await svir.chat({ model: MODELS.plain, messages: image }), 400, 'unsupported_content');
    expect(error.message).toContain('llama-listed');
    expect(error.message).toContain('no image projector');
  });

  it('refuses an image before sending when the config says vision: false', async () => {
    const error = expectErrorAnswer(await svir.chat({ model: 'tiny-text', messages: image }), 400, 'unsupported_content');
    expect(error.message).toContain('llama-text');
  });

  it('answers a prompt over the context with 400 context_length_exceeded, streamed or not', async () => {
    for (const stream of [true, false]) {
      const error = expectErrorAnswer(await svir.chat({ model: 'tiny', stream, messages: overflowing }), 400, 'context_length_exceeded');
      expect(error.message).toContain('maximum context length');
      expect(error.message).toContain('512');
    }
  });
});

const slotSchema = z.looseObject({ is_processing: z.boolean() });

/** Whether a slot is generating (/slots), and the server's counters (/metrics, Prometheus text). */
async function serverState(server: RealLlamaServer): Promise<{ busy: boolean; metrics: Record<string, number> }> {
  const slotList = z.array(slotSchema).parse(await (await fetch(`${server.url}/slots`)).json());
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const metrics: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(/^llamacpp:(\w+) (\S+)$/gm)) if (name !== undefined) metrics[name] = Number(value);
  return { busy: slotList.some((slot) => slot.is_processing), metrics };
}

describe('legacy completions over the real server', () => {
  it('continues a raw prompt, streamed as text_completion chunks and folded', async () => {
    const streamed = await svir.post('/v1/completions', { model: 'tiny', prompt: 'Once upon a time', max_tokens: 20, stream: true });
    expect(streamed.status, streamed.text).toBe(200);
    const frames = streamed.text.split('\n\n').filter((frame) => frame.startsWith('data: '));
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => z.looseObject({ object: z.string(), model: z.string(), choices: z.array(z.looseObject({ text: z.string() })) }).parse(JSON.parse(frame.slice(6))));
    expect(new Set(chunks.map((chunk) => chunk.object))).toEqual(new Set(['text_completion']));
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set(['tiny']));
    expect(chunks.map((chunk) => chunk.choices[0]?.text ?? '').join('')).toBe(' I am a tiny test model for svir.');

    const folded = await svir.post('/v1/completions', { model: 'tiny', prompt: 'Once upon a time', max_tokens: 20 });
    expect(folded.status, folded.text).toBe(200);
    const body = z.looseObject({ object: z.string(), choices: z.array(z.looseObject({ text: z.string(), finish_reason: z.string() })) }).parse(folded.json());
    expect(body.object).toBe('text_completion');
    expect(body.choices[0]).toMatchObject({ text: ' I am a tiny test model for svir.', finish_reason: 'stop' });
  });
});

describe('a client that goes away', () => {
  it('stops the generation: the server goes idle (/slots, /metrics) long before max_tokens', async () => {
    const MAX_TOKENS = 4000;
    const controller = new AbortController();
    const response = await fetch(`${svir.process.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // ignore_eos (a llama.cpp field svir passes through): the model goes on past its answer.
      body: JSON.stringify({ model: 'tiny-long', stream: true, messages: sayHi, max_tokens: MAX_TOKENS, ignore_eos: true }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    let text = '';
    while (!text.includes('"content"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before any content: ${text}`);
      text += new TextDecoder().decode(value);
    }
    expect((await serverState(long)).busy, 'generating when the client goes').toBe(true);
    controller.abort();
    await reader.cancel().catch(() => undefined);

    const deadline = Date.now() + 20_000;
    let state = await serverState(long);
    while ((state.busy || state.metrics['requests_processing'] !== 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await serverState(long);
    }
    expect(state.busy, 'every slot idle').toBe(false);
    expect(state.metrics['requests_processing']).toBe(0);
    // This server served only this request: it decoded far fewer tokens than it was asked for.
    expect(state.metrics['tokens_predicted_total']).toBeGreaterThan(0);
    expect(state.metrics['tokens_predicted_total']).toBeLessThan(MAX_TOKENS / 2);
  });
});

describe('clients and tools', () => {
  it('the openai client\'s chat.completions.stream() helper gets a whole required call', async () => {
    const client = new OpenAI({ baseURL: svir.process.baseUrl, apiKey: 'none', maxRetries: 0 });
    const runner = client.chat.completions.stream({
      model: 'tiny',
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [
        { type: 'function', function: weatherTool.function },
        { type: 'function', function: timeTool.function },
      ],
      tool_choice: 'required',
      max_tokens: 200,
    });
    const argumentsDone: string[] = [];
    runner.on('tool_calls.function.arguments.done', (event) => argumentsDone.push(event.name));
    const final = await runner.finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message?.content).toBe(TINY_ANSWER);
    const call = message?.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type === 'function') {
      expect(TOOL_NAMES).toContain(call.function.name);
      expect(call.id).toMatch(CALL_ID);
      expect(JSON.parse(call.function.arguments)).toBeTypeOf('object');
      expect(argumentsDone).toEqual([call.function.name]);
    }
  });

  it('svir check finds the real server usable and lists what it probed', async () => {
    const result = await runSvirCheck([{ name: 'llama', type: 'llamacpp', url: `${plain.url}/v1` }]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    // Every feature works as sent, and the server itself refuses the image (no projector).
    expect(result.stdout).toMatch(/^llama\s+llamacpp\s+up\s+1\s+yes\s+yes\s+yes\s+yes\s+yes\s+rejected$/m);
    expect(result.stdout).toContain('probed with');
    expect(result.stdout).toMatch(/tiny-qwen3-chatml\.gguf/);
    expect(result.stdout).toContain('images: rejected: 400 unsupported_content');
    expect(result.stdout).toContain('All 1 backend(s) usable.');
  });
});

/** A Responses stream's events: `event: <type>` and one `data:` line each. */
function responsesEvents(text: string): { type: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: '))
    .map((frame) => {
      const [eventLine = '', dataLine = ''] = frame.split('\n');
      expect(dataLine.startsWith('data: '), frame).toBe(true);
      return { type: eventLine.slice('event: '.length), data: z.record(z.string(), z.unknown()).parse(JSON.parse(dataLine.slice(6))) };
    });
}

describe('the Responses route over the real server', () => {
  const functionTools = [weatherTool, timeTool].map((tool) => ({ type: 'function' as const, ...tool.function, strict: false }));

  it('streams reasoning, message and a required call as Responses events, created first and completed last', async () => {
    const answer = await svir.post('/v1/responses', { model: 'tiny', stream: true, input: 'What is the weather in Paris?', tools: functionTools, tool_choice: 'required', max_output_tokens: 200 });
    expect(answer.status, answer.text).toBe(200);
    const events = responsesEvents(answer.text);
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.map((event) => event.data['sequence_number'])).toEqual(events.map((_, i) => i));
    // Every *.added has its *.done.
    for (const type of new Set(events.map((event) => event.type).filter((type) => type.endsWith('.added')))) {
      const done = type.replace(/\.added$/, '.done');
      expect(events.filter((event) => event.type === done).length, done).toBe(events.filter((event) => event.type === type).length);
    }
    const items = events.filter((event) => event.type === 'response.output_item.done').map((event) => z.looseObject({ type: z.string() }).parse(event.data['item']));
    expect(items.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    const call = z.looseObject({ call_id: z.string(), name: z.string(), arguments: z.string() }).parse(items[2]);
    expect(TOOL_NAMES).toContain(call.name);
    expect(call.call_id).toMatch(CALL_ID);
    expect(JSON.parse(call.arguments)).toBeTypeOf('object');
  });

  it('answers a plain request with the openai client: the text, the reasoning item, the usage', async () => {
    const client = new OpenAI({ baseURL: svir.process.baseUrl, apiKey: 'none', maxRetries: 0 });
    const response = await client.responses.create({ model: 'tiny', input: 'Say hi.', max_output_tokens: 60 });
    expect(response.status).toBe('completed');
    expect(response.model).toBe('tiny');
    expect(response.output_text).toBe(TINY_ANSWER);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.usage?.output_tokens).toBeGreaterThanOrEqual(20);
  });

  it('the openai client\'s responses.stream() helper ends with the whole call', async () => {
    const client = new OpenAI({ baseURL: svir.process.baseUrl, apiKey: 'none', maxRetries: 0 });
    const stream = client.responses.stream({ model: 'tiny', input: 'What time is it?', tools: functionTools, tool_choice: { type: 'function', name: 'get_time' }, max_output_tokens: 200 });
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    expect(call?.type === 'function_call' ? call.name : undefined).toBe('get_time');
  });

  it('answers a prompt over the context with 400 context_length_exceeded before any event', async () => {
    const error = expectErrorAnswer(await svir.post('/v1/responses', { model: 'tiny', stream: true, input: overflowing[0]?.content ?? '' }), 400, 'context_length_exceeded');
    expect(error.message).toContain('maximum context length');
  });
});

