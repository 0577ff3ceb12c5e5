/**
 * svir in front of `openai` backends (any OpenAI-compatible server): the request goes as the
 * client sent it, a stricter server's refusal of an optional field is retried once without it
 * (docs/wire-protocol.md#optional-fields), and a reasoning model's refusal of `max_tokens` once
 * under its other name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockerTool } from '../adapters/chat.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startStrictServer } from '../fakes/strict-server.js';
import { changesOf, expectErrorAnswer, readCleanStream, received, startSvir, type SvirRig } from './backends-rig.js';

let strict: ScriptedUpstream;
let svir: SvirRig;

const answer = (text: string) =>
  sse(
    { id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'strict-model-2026', choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] },
    { id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'strict-model-2026', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    '[DONE]',
  );

beforeAll(async () => {
  strict = await startScriptedUpstream();
  svir = await startSvir([{ name: 'strict', type: 'openai', upstream: strict, models: ['strict-model'], apiKey: 'sk-upstream' }]);
});
afterAll(async () => {
  await svir.close();
  await strict.close();
});

const count = (): number => strict.requestsTo('POST', '/v1/chat/completions').length;

describe('openai-type backends through svir', () => {
  it('sends the request as the client sent it, with its own key and never the client key', async () => {
    strict.chat({ kind: 'sse', pieces: [answer('Hi.')] });
    const before = count();
    const fields = {
      model: 'strict-model',
      messages: [{ role: 'user', content: 'Say hello' }],
      tools: [lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
      max_completion_tokens: 20,
      temperature: 0.3,
      seed: 9,
    };
    const clean = readCleanStream(await svir.chat({ ...fields, stream: true }), 'strict-model');
    expect(clean.content).toBe('Hi.');
    expect(received(strict, before)).toEqual({ ...fields, stream: true, stream_options: { include_usage: true } });
    const headers = strict.requestsTo('POST', '/v1/chat/completions')[before]?.headers;
    expect(headers?.authorization).toBe('Bearer sk-upstream');
  });

  it('retries once without stream_options when a stricter server refuses it (422), and invents no usage', async () => {
    strict.chat(
      { kind: 'body', status: 422, body: { detail: [{ type: 'extra_forbidden', loc: ['body', 'stream_options'], msg: 'Extra inputs are not permitted' }] } },
      { kind: 'sse', pieces: [answer('Hello!')] },
    );
    const before = count();
    const response = await svir.chat({ model: 'strict-model', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(response, 'strict-model');
    expect(clean.content).toBe('Hello!');
    expect(clean.usage).toBeUndefined();
    expect(count()).toBe(before + 2);
    expect(received(strict, before + 1)).not.toHaveProperty('stream_options');
    expect(changesOf(response)).toEqual(['retried without stream_options (the backend refused it)']);
  });

  it('retries once without reasoning_effort when a server refuses it (400)', async () => {
    strict.chat(
      { kind: 'body', status: 400, body: { error: { message: 'Unrecognized request argument supplied: reasoning_effort', type: 'invalid_request_error', param: null, code: null } } },
      { kind: 'sse', pieces: [answer('OK.')] },
    );
    const before = count();
    const response = await svir.chat({ model: 'strict-model', reasoning_effort: 'low', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(received(strict, before + 1)).not.toHaveProperty('reasoning_effort');
    expect(changesOf(response)).toEqual(['retried without reasoning_effort (the backend refused it)']);
  });

  it('retries max_tokens as max_completion_tokens for a reasoning model that refuses it', async () => {
    strict.chat(
      {
        kind: 'body',
        status: 400,
        body: { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } },
      },
      { kind: 'sse', pieces: [answer('OK.')] },
    );
    const before = count();
    const response = await svir.chat({ model: 'strict-model', max_tokens: 12, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(received(strict, before + 1)).toMatchObject({ max_completion_tokens: 12 });
    expect(received(strict, before + 1)).not.toHaveProperty('max_tokens');
  });
});

describe('a server that refuses optional fields one at a time', () => {
  let oneByOne: ScriptedUpstream;
  let endless: ScriptedUpstream;
  let rig: SvirRig;
  beforeAll(async () => {
    oneByOne = await startStrictServer({ refuses: ['stream_options', 'reasoning_effort', 'parallel_tool_calls'] });
    endless = await startStrictServer({ refusesAgain: ['stream_options'] });
    rig = await startSvir([
      { name: 'one-by-one', type: 'openai', upstream: oneByOne, models: ['strict-2026'] },
      { name: 'endless', type: 'openai', upstream: endless, models: ['endless-2026'] },
    ]);
  });
  afterAll(async () => {
    await rig.close();
    await oneByOne.close();
    await endless.close();
  });
  const requests = (upstream: ScriptedUpstream): number => upstream.requestsTo('POST', '/v1/chat/completions').length;

  it('retries once per field it names (422 on stream_options, then 400 on reasoning_effort), each noted in x-svir-changes', async () => {
    for (const stream of [true, false]) {
      const before = requests(oneByOne);
      const response = await rig.chat({
        model: 'strict-2026',
        stream,
        reasoning_effort: 'low',
        parallel_tool_calls: false,
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      expect(requests(oneByOne) - before, `stream ${String(stream)}`).toBe(4);
      expect(received(oneByOne, before)).toHaveProperty('stream_options');
      expect(received(oneByOne, before + 1)).not.toHaveProperty('stream_options');
      expect(received(oneByOne, before + 1)).toHaveProperty('reasoning_effort', 'low');
      expect(received(oneByOne, before + 2)).not.toHaveProperty('reasoning_effort');
      expect(received(oneByOne, before + 3)).not.toHaveProperty('parallel_tool_calls');
      expect(changesOf(response)).toEqual([
        'retried without stream_options (the backend refused it)',
        'retried without reasoning_effort (the backend refused it)',
        'retried without parallel_tool_calls (the backend refused it)',
      ]);
      if (stream) expect(readCleanStream(response, 'strict-2026').content).toBe('Hello from a strict server.');
      else expect(response.json()).toMatchObject({ choices: [{ message: { content: 'Hello from a strict server.' }, finish_reason: 'stop' }] });
    }
  });

  it('retries a field only once: a server that names it again gets its refusal through', async () => {
    const before = requests(endless);
    const response = await rig.chat({ model: 'endless-2026', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    // svir's answer to a refused request is a 400 whatever the server's status
    // (docs/contract.md#errors).
    const error = expectErrorAnswer(response, 400, 'invalid_request');
    expect(error.message).toContain('Extra inputs are not permitted');
    expect(requests(endless) - before).toBe(2);
  });
});
