/**
 * svir in front of a fake Ollama (docs/ollama.md): the models are discovered from its
 * GET /v1/models, the client gets the clean dialect, and each request reached Ollama in the form
 * it reads (no tool_choice, reasoning back as `reasoning`, images as data URLs), with its
 * refusals retried or answered in the one error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lockerTool, PNG_DATA_URL, weatherTool } from '../adapters/chat.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { changesOf, expectErrorAnswer, readCleanStream, received, startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

let ollama: ScriptedUpstream;
let legacy: ScriptedUpstream;
let empty: ScriptedUpstream;
let svir: SvirRig;
const THINKER = 'qwen3:8b';
const PLAIN = 'llama3.2:latest';
const NO_SHIFT = 'deepseek-v2:16b';
const OLD = 'qwen3-old:8b';

beforeAll(async () => {
  ollama = await startOllamaServer();
  legacy = await startOllamaServer({ models: [{ name: OLD, thinking: true, tools: true }], wire: 'legacy', legacyEfforts: true });
  empty = await startOllamaServer({ models: [] });
  svir = await startSvir([
    { name: 'ollama', type: 'ollama', upstream: ollama, urlPath: '' },
    { name: 'ollama-old', type: 'ollama', upstream: legacy, urlPath: '/v1/' },
    { name: 'ollama-empty', type: 'ollama', upstream: empty },
  ]);
});
afterAll(async () => {
  await svir.close();
  for (const upstream of [ollama, legacy, empty]) await upstream.close();
});

const count = (upstream = ollama): number => upstream.requestsTo('POST', '/v1/chat/completions').length;
const user = (content: unknown) => ({ role: 'user', content });

describe('Ollama models through svir', () => {
  it('lists its chat models under name:tag, leaves the embedding model out, and takes a backend with data: null', async () => {
    const response = await fetch(`${svir.url}/v1/models`, { headers: { authorization: `Bearer ${SVIR_KEY}` } });
    expect(response.status).toBe(200);
    const ids = z.object({ data: z.array(z.object({ id: z.string() })) }).parse(await response.json()).data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining([THINKER, PLAIN, NO_SHIFT, OLD]));
    expect(ids).not.toContain('nomic-embed-text:latest');
  });
});

describe('Ollama chat through svir', () => {
  it('reads reasoning under `reasoning` (thinking on by default) and its usage into the clean dialect', async () => {
    const before = count();
    const answer = await svir.chat({ model: THINKER, stream: true, stream_options: { include_usage: true }, messages: [user('Count from one to five')] });
    const clean = readCleanStream(answer, THINKER);
    expect(clean.reasoning).toBe('The user wants me to count from one to five.');
    expect(clean.content).toBe('One, two, three, four, five.');
    expect(clean.finish).toBe('stop');
    expect(clean.usage).toMatchObject({ prompt_tokens: 22, completion_tokens: 12, total_tokens: 34 });
    expect(received(ollama, before)).toMatchObject({ model: THINKER, stream: true, stream_options: { include_usage: true } });
    expect(answer.headers.get('x-svir-backend')).toBe('ollama');
  });

  it('turns reasoning off with reasoning_effort none', async () => {
    const clean = readCleanStream(await svir.chat({ model: THINKER, stream: true, reasoning_effort: 'none', messages: [user('Say hello')] }), THINKER);
    expect(clean.reasoning).toBe('');
    expect(clean.content).toBe('Hello!');
  });

  it('folds the stream for stream: false', async () => {
    const answer = await svir.chat({ model: THINKER, stream: false, messages: [user('Say hello')] });
    expect(answer.status).toBe(200);
    const body = z
      .object({ object: z.literal('chat.completion'), choices: z.array(z.object({ message: z.looseObject({ content: z.string(), reasoning_content: z.string() }), finish_reason: z.string() })) })
      .parse(answer.json());
    expect(body.choices[0]?.message).toMatchObject({ content: 'Hello!', reasoning_content: 'A greeting is enough.' });
    expect(body.choices[0]?.finish_reason).toBe('stop');
  });

  it('retries without the effort for a model that cannot think, and says so', async () => {
    const before = count();
    const answer = await svir.chat({ model: PLAIN, stream: true, reasoning_effort: 'low', messages: [user('Say hello')] });
    const clean = readCleanStream(answer, PLAIN);
    expect(clean.content).toBe('Hello!');
    expect(count() - before).toBe(2);
    expect(received(ollama, before + 1)).not.toHaveProperty('reasoning_effort');
    expect(changesOf(answer)).toContain('retried without reasoning_effort (the model does not reason)');
  });

  it('an older release refusing xhigh is retried with the nearest effort it lists, and its legacy chunks read', async () => {
    const before = count(legacy);
    const answer = await svir.chat({ model: OLD, stream: true, stream_options: { include_usage: true }, reasoning_effort: 'xhigh', messages: [user('Count from one to five')] });
    const clean = readCleanStream(answer, OLD);
    expect(clean.content).toBe('One, two, three, four, five.');
    expect(clean.reasoning).toBe('The user wants me to count from one to five.');
    expect(clean.finish).toBe('stop');
    expect(clean.usage).toBeDefined();
    expect(received(legacy, before + 1).reasoning_effort).toBe('high');
    expect(changesOf(answer)).toContain('reasoning_effort "xhigh" refused: retried with "high"');
  });

  it('sends reasoning back under `reasoning`', async () => {
    const before = count();
    readCleanStream(
      await svir.chat({
        model: THINKER,
        stream: true,
        messages: [user('Hi'), { role: 'assistant', content: 'Hello!', reasoning_content: 'A greeting is enough.' }, user('Say hello again')],
      }),
      THINKER,
    );
    const messages = z.array(z.looseObject({ role: z.string() })).parse(received(ollama, before).messages);
    expect(messages[1]).toEqual({ role: 'assistant', content: 'Hello!', reasoning: 'A greeting is enough.' });
  });
});

describe('Ollama tools through svir (it reads no tool_choice)', () => {
  it('streams a whole call, with its id and name, finished with tool_calls', async () => {
    const clean = readCleanStream(await svir.chat({ model: THINKER, stream: true, messages: [user('Open locker 4')], tools: [lockerTool] }), THINKER);
    expect(clean.toolCalls).toEqual([{ id: 'call_k3v9x2qa', name: 'open_locker', arguments: '{"number":4}' }]);
    expect(clean.finish).toBe('tool_calls');
  });

  it('two calls Ollama sends both at index 0, each whole with its own id, are two calls (stream and stream: false)', async () => {
    const ask = { model: THINKER, messages: [user('Open lockers 4 and 7')], tools: [lockerTool] };
    const clean = readCleanStream(await svir.chat({ ...ask, stream: true }), THINKER);
    expect(clean.toolCalls).toEqual([
      { id: 'call_k3v9x2qa', name: 'open_locker', arguments: '{"number":4}' },
      { id: 'call_m7p1d4zr', name: 'open_locker', arguments: '{"number":7}' },
    ]);
    expect(clean.finish).toBe('tool_calls');
    const folded = await svir.chat({ ...ask, stream: false });
    expect(folded.status).toBe(200);
    const message = z
      .object({ choices: z.array(z.object({ message: z.object({ tool_calls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) })) }), finish_reason: z.string() })) })
      .parse(folded.json()).choices[0];
    expect(message?.finish_reason).toBe('tool_calls');
    expect(message?.message.tool_calls.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['call_k3v9x2qa', 'open_locker', { number: 4 }],
      ['call_m7p1d4zr', 'open_locker', { number: 7 }],
    ]);
  });

  it('the same two calls from a release that counts the index (v0.20.6 on) come out the same', async () => {
    const counted = await startOllamaServer({ callIndex: 'counted' });
    const rig = await startSvir([{ name: 'ollama-new', type: 'ollama', upstream: counted, models: [THINKER] }]);
    try {
      const clean = readCleanStream(await rig.chat({ model: THINKER, stream: true, messages: [user('Open lockers 4 and 7')], tools: [lockerTool] }), THINKER);
      expect(clean.toolCalls.map((call) => call.arguments)).toEqual(['{"number":4}', '{"number":7}']);
      expect(JSON.stringify(counted.requestsTo('POST', '/v1/chat/completions')[0]?.body)).not.toContain('tool_choice');
    } finally {
      await rig.close();
      await counted.close();
    }
  });

  it('sends no tools under none (the model would call one)', async () => {
    const before = count();
    const answer = await svir.chat({ model: THINKER, stream: true, messages: [user('Open locker 4')], tools: [lockerTool], tool_choice: 'none' });
    const clean = readCleanStream(answer, THINKER);
    expect(clean.toolCalls).toEqual([]);
    expect(clean.finish).toBe('stop');
    expect(received(ollama, before)).not.toHaveProperty('tools');
    expect(changesOf(answer)).toContain('tool_choice "none": tools not sent');
  });

  it('offers only the named tool, and notes that required is not enforced', async () => {
    const before = count();
    const named = await svir.chat({ model: THINKER, stream: true, messages: [user('Open locker 4')], tools: [weatherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    expect(readCleanStream(named, THINKER).toolCalls.map((call) => call.name)).toEqual(['open_locker']);
    expect(received(ollama, before).tools).toEqual([lockerTool]);
    expect(received(ollama, before)).not.toHaveProperty('tool_choice');
    const required = await svir.chat({ model: THINKER, stream: true, messages: [user('Say hello')], tools: [lockerTool], tool_choice: 'required' });
    expect(readCleanStream(required, THINKER).finish).toBe('stop');
    expect(changesOf(required)).toContain('tool_choice "required" not enforced: Ollama reads no tool_choice');
  });

  it('answers its refusal of tools for a model without them in the one error shape', async () => {
    const error = expectErrorAnswer(await svir.chat({ model: NO_SHIFT, stream: true, messages: [user('Open locker 4')], tools: [lockerTool] }), 400, 'invalid_request');
    expect(error.message).toContain('does not support tools');
    expect(error.message).toContain('ollama');
  });
});

describe('Ollama images through svir', () => {
  it('sends a png data URL as it is', async () => {
    const before = count();
    const clean = readCleanStream(await svir.chat({ model: THINKER, stream: true, messages: [user([{ type: 'text', text: 'Say hello' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }])] }), THINKER);
    expect(clean.content).toBe('Hello!');
    expect(JSON.stringify(received(ollama, before).messages)).toContain(PNG_DATA_URL);
  });

  it('refuses an http(s) image URL with 400 unsupported_content before sending (Ollama would answer its own 400)', async () => {
    const before = count();
    const error = expectErrorAnswer(
      await svir.chat({ model: THINKER, stream: true, messages: [user([{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: 'http://127.0.0.1:9/cat.png' } }])] }),
      400,
      'unsupported_content',
    );
    expect(error.message).toContain('base64 data URLs');
    expect(count()).toBe(before);
  });
});

describe('Ollama context and failures through svir', () => {
  const long = 'word '.repeat(3000);

  it('a prompt over the context of a model that shifts: answered (Ollama shortens it) and noted in x-svir-changes', async () => {
    const answer = await svir.chat({ model: THINKER, stream: true, stream_options: { include_usage: true }, messages: [user(long), { role: 'assistant', content: 'OK.' }, user('Say hello')] });
    const clean = readCleanStream(answer, THINKER);
    expect(clean.content).toBe('Hello!');
    expect(changesOf(answer).some((change) => /^prompt of about \d+ tokens may exceed the backend's context of 4096 tokens/.test(change))).toBe(true);
    // Ollama dropped the long first message: the usage counts what was left.
    expect(clean.usage?.prompt_tokens).toBeLessThan(100);
  });

  it('a prompt over the context of a model that cannot shift → 400 context_length_exceeded in OpenAI words', async () => {
    const error = expectErrorAnswer(await svir.chat({ model: NO_SHIFT, stream: true, messages: [user(long)] }), 400, 'context_length_exceeded');
    expect(error.message).toContain('maximum context length');
    expect(error.message).toContain('ollama');
  });

  it('an error Ollama loses inside the stream ends it with an error event (stream) or a 502 (stream: false)', async () => {
    const clean = readCleanStream(await svir.chat({ model: THINKER, stream: true, messages: [user('Crash please')] }), THINKER);
    expect(clean.reasoning).toBe('Nothing special is asked.');
    expect(clean.error?.code).toBe('upstream_error');
    expect(clean.done).toBe(false);
    expectErrorAnswer(await svir.chat({ model: THINKER, stream: false, messages: [user('Crash please')] }), 502, 'upstream_error');
  });

  it('a model named without its tag is its listed :latest, as Ollama answers it; the client keeps its name', async () => {
    const before = count();
    const clean = readCleanStream(await svir.chat({ model: 'llama3.2', stream: true, messages: [user('Say hello')] }), 'llama3.2');
    expect(clean.content).toBe('Hello!');
    expect(received(ollama, before).model).toBe(PLAIN);
    // Only a tag-less name: another tag is another model.
    expectErrorAnswer(await svir.chat({ model: 'llama3.2:3b', stream: true, messages: [user('Say hello')] }), 404, 'model_not_found');
  });

  it('a model it does not list is svir\'s 404 model_not_found, never sent', async () => {
    const before = count();
    expectErrorAnswer(await svir.chat({ model: 'mistral:7b', stream: true, messages: [user('Say hello')] }), 404, 'model_not_found');
    expect(count()).toBe(before);
  });
});
