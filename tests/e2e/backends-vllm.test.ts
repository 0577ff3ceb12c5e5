/**
 * svir in front of fake vLLM servers (with and without their parsers): the client gets the
 * clean dialect, and each request reached the server in the form it keeps
 * (docs/wire-protocol.md#tools, #optional-fields, #chunks, #tool-calls, #reasoning, #http-errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockerTool } from '../adapters/chat.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import { changesOf, expectErrorAnswer, readCleanStream, received, startSvir, type SvirRig } from './backends-rig.js';

let parsers: ScriptedUpstream;
let bare: ScriptedUpstream;
let svir: SvirRig;

beforeAll(async () => {
  parsers = await startVllmServer({ maxModelLen: 4000 });
  bare = await startVllmServer({ toolParser: false, reasoningParser: false });
  svir = await startSvir([
    { name: 'vl', type: 'vllm', upstream: parsers, models: ['qwen3.8'] },
    // Without --reasoning-parser, Qwen3.8's template opens <think> itself.
    { name: 'vl-bare', type: 'vllm', upstream: bare, models: ['qwen3.8-bare'], reasoningTags: 'open' },
  ]);
});
afterAll(async () => {
  await svir.close();
  await parsers.close();
  await bare.close();
});

const count = (upstream: ScriptedUpstream): number => upstream.requestsTo('POST', '/v1/chat/completions').length;

describe('vLLM through svir', () => {
  it('retries an effort its template refuses once, with the nearest supported value, and says so', async () => {
    const before = count(parsers);
    const answer = await svir.chat({ model: 'qwen3.8', stream: true, reasoning_effort: 'high', messages: [{ role: 'user', content: 'Count to five' }] });
    const clean = readCleanStream(answer, 'qwen3.8');
    expect(clean.content).toBe('One, two, three, four, five.');
    expect(count(parsers)).toBe(before + 2);
    expect(received(parsers, before).reasoning_effort).toBe('high');
    expect(received(parsers, before + 1).reasoning_effort).toBe('xhigh');
    expect(changesOf(answer)).toEqual(['reasoning_effort "high" refused by the template: retried with "xhigh"']);
  });

  it('reads `reasoning`, drops prompt_token_ids and token_ids, and keeps its reasoning tokens in usage', async () => {
    const answer = await svir.chat({ model: 'qwen3.8', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(answer, 'qwen3.8');
    expect(clean.reasoning).toBe('A greeting is enough.');
    expect(answer.text).not.toContain('token_ids');
    expect(answer.text).not.toContain('prompt_text');
    expect(clean.usage?.completion_tokens_details).toEqual({ reasoning_tokens: 9 });
  });

  it('finishes a named call it ends with stop as tool_calls', async () => {
    const before = count(parsers);
    const answer = await svir.chat({
      model: 'qwen3.8',
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
      tools: [lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
    });
    const clean = readCleanStream(answer, 'qwen3.8');
    expect(clean.toolCalls).toEqual([{ id: 'chatcmpl-tool-9d2e', name: 'open_locker', arguments: '{"number":4}' }]);
    expect(clean.finish).toBe('tool_calls');
    expect(received(parsers, before).tool_choice).toEqual({ type: 'function', function: { name: 'open_locker' } });
  });

  it('sends reasoning back as `reasoning`', async () => {
    const before = count(parsers);
    await svir.chat({
      model: 'qwen3.8',
      messages: [
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: 'Hello!', reasoning_content: 'A greeting is enough.' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(received(parsers, before).messages).toEqual([
      { role: 'user', content: 'Say hello' },
      { role: 'assistant', content: 'Hello!', reasoning: 'A greeting is enough.' },
      { role: 'user', content: 'Again' },
    ]);
  });

  it('reads its input_tokens overflow as context_length_exceeded, and a max_tokens refusal as a parameter error', async () => {
    const overflow = expectErrorAnswer(await svir.chat({ model: 'qwen3.8', messages: [{ role: 'user', content: 'x'.repeat(4100) }] }), 400, 'context_length_exceeded');
    expect(overflow.message).toContain("maximum context length is 4000 tokens");
    const param = expectErrorAnswer(await svir.chat({ model: 'qwen3.8', max_tokens: 300000, messages: [{ role: 'user', content: 'hi' }] }), 400, 'invalid_request');
    expect(param.param).toBe('max_tokens');
  });

  it('without a reasoning parser: reasoning up to </think> is reasoning, not answer, and is not sent back', async () => {
    const answer = await svir.chat({ model: 'qwen3.8-bare', stream: true, messages: [{ role: 'user', content: 'Count to five' }] });
    const clean = readCleanStream(answer, 'qwen3.8-bare');
    expect(clean.reasoning.trim()).toBe('The user wants me to count from one to five.');
    expect(clean.content.trim()).toBe('One, two, three, four, five.');
    expect(clean.content).not.toContain('think>');
    const before = count(bare);
    const next = await svir.chat({
      model: 'qwen3.8-bare',
      messages: [
        { role: 'user', content: 'Count to five' },
        { role: 'assistant', content: clean.content, reasoning_content: clean.reasoning },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(received(bare, before).messages).toEqual([
      { role: 'user', content: 'Count to five' },
      { role: 'assistant', content: clean.content },
      { role: 'user', content: 'Again' },
    ]);
    expect(changesOf(next)).toEqual(['reasoning in assistant turns not sent (its reasoning arrives in think tags)']);
  });

  it('without a reasoning parser, reasoning turned off: no </think> comes, and the whole answer is content (streamed and folded)', async () => {
    const offs: Record<string, unknown>[] = [{ reasoning_effort: 'none' }, { chat_template_kwargs: { enable_thinking: false } }];
    for (const off of offs) {
      const clean = readCleanStream(await svir.chat({ model: 'qwen3.8-bare', stream: true, ...off, messages: [{ role: 'user', content: 'Count to five' }] }), 'qwen3.8-bare');
      expect(clean.content, JSON.stringify(off)).toBe('One, two, three, four, five.');
      expect(clean.reasoning).toBe('');
      const folded = await svir.chat({ model: 'qwen3.8-bare', ...off, messages: [{ role: 'user', content: 'Count to five' }] });
      expect(folded.status).toBe(200);
      expect(folded.json()).toMatchObject({ choices: [{ message: { content: 'One, two, three, four, five.' }, finish_reason: 'stop' }] });
      expect(folded.text).not.toContain('reasoning_content');
    }
  });

  it('without a reasoning parser, structured output: the JSON is content, not reasoning', async () => {
    const format = { type: 'json_schema', json_schema: { name: 'locker', schema: { type: 'object', properties: { number: { type: 'integer' } } } } };
    const clean = readCleanStream(
      await svir.chat({ model: 'qwen3.8-bare', stream: true, response_format: format, messages: [{ role: 'user', content: 'Which locker?' }] }),
      'qwen3.8-bare',
    );
    expect(clean.content).toBe('{"number":4}');
    expect(clean.reasoning).toBe('');
  });

  it('without a tool-call parser: its refusal of tools reaches the client as a 400 about the request', async () => {
    const error = expectErrorAnswer(
      await svir.chat({ model: 'qwen3.8-bare', messages: [{ role: 'user', content: 'Open locker 4' }], tools: [lockerTool] }),
      400,
      'invalid_request',
    );
    expect(error.message).toContain('--tool-call-parser');
    const none = await svir.chat({ model: 'qwen3.8-bare', stream: true, messages: [{ role: 'user', content: 'Open locker 4' }], tools: [lockerTool], tool_choice: 'none' });
    expect(readCleanStream(none, 'qwen3.8-bare').toolCalls).toEqual([]);
  });
});

describe('vLLM whose template names efforts svir does not know', () => {
  let odd: ScriptedUpstream;
  let oddSvir: SvirRig;
  beforeAll(async () => {
    odd = await startScriptedUpstream();
    oddSvir = await startSvir([{ name: 'vl-odd', type: 'vllm', upstream: odd, models: ['odd-model'] }]);
  });
  afterAll(async () => {
    await oddSvir.close();
    await odd.close();
  });

  it('retries once without reasoning_effort, and says so', async () => {
    const { chunk } = chatChunkMaker({ id: 'chatcmpl-odd', created: 1_790_000_000, model: 'odd-model' });
    odd.chat(
      {
        kind: 'body',
        status: 400,
        body: { error: { message: 'Unexpected reasoning effort high. Supported types are fast and slow.', type: 'BadRequestError', param: null, code: 400 } },
      },
      { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'Done.' }, null), chunk({}, 'stop'), '[DONE]')] },
    );
    const answer = await oddSvir.chat({ model: 'odd-model', stream: true, reasoning_effort: 'high', messages: [{ role: 'user', content: 'hi' }] });
    expect(readCleanStream(answer, 'odd-model').content).toBe('Done.');
    expect(odd.requestsTo('POST', '/v1/chat/completions')).toHaveLength(2);
    expect(received(odd, 0).reasoning_effort).toBe('high');
    expect(received(odd, 1)).not.toHaveProperty('reasoning_effort');
    expect(changesOf(answer)).toEqual(['reasoning_effort "high" refused by the template: retried without it']);
  });
});

describe('vLLM whose template refuses every effort svir picks', () => {
  let fickle: ScriptedUpstream;
  let fickleSvir: SvirRig;
  beforeAll(async () => {
    fickle = await startScriptedUpstream();
    fickleSvir = await startSvir([{ name: 'vl-fickle', type: 'vllm', upstream: fickle, models: ['fickle'] }]);
  });
  afterAll(async () => {
    await fickleSvir.close();
    await fickle.close();
  });

  it('changes reasoning_effort once, and gives the second refusal to the client instead of going back and forth', async () => {
    const refusal = (asked: string, supported: string) => ({
      kind: 'body' as const,
      status: 400,
      body: { error: { message: `Unexpected reasoning effort ${asked}. Supported types are ${supported}.`, type: 'BadRequestError', param: null, code: 400 } },
    });
    fickle.chat(refusal('high', 'xhigh (default)'), refusal('xhigh', 'high (default)'), refusal('high', 'xhigh (default)'));
    const error = expectErrorAnswer(await fickleSvir.chat({ model: 'fickle', reasoning_effort: 'high', messages: [{ role: 'user', content: 'hi' }] }), 400, 'invalid_request');
    expect(error.message).toContain('Unexpected reasoning effort xhigh');
    expect(fickle.requestsTo('POST', '/v1/chat/completions')).toHaveLength(2);
  });
});

describe('vLLM whose engine fails (older vLLM error bodies, abort)', () => {
  let midStream: ScriptedUpstream;
  let first: ScriptedUpstream;
  let aborts: ScriptedUpstream;
  let failSvir: SvirRig;
  beforeAll(async () => {
    midStream = await startVllmServer({ engineFailure: 'error-object-mid-stream' });
    first = await startVllmServer({ engineFailure: 'error-object-first' });
    aborts = await startVllmServer({ engineFailure: 'abort' });
    failSvir = await startSvir([
      { name: 'vl-dies', type: 'vllm', upstream: midStream, models: ['dies'] },
      { name: 'vl-dies-first', type: 'vllm', upstream: first, models: ['dies-first'] },
      { name: 'vl-aborts', type: 'vllm', upstream: aborts, models: ['aborts'] },
    ]);
  });
  afterAll(async () => {
    await failSvir.close();
    await midStream.close();
    await first.close();
    await aborts.close();
  });
  const ask = (model: string, stream: boolean): Record<string, unknown> => ({ model, stream, messages: [{ role: 'user', content: 'Count to five' }] });

  it('an error chunk without an error key mid-stream: the words so far, then an error event with the server message', async () => {
    const clean = readCleanStream(await failSvir.chat(ask('dies', true)), 'dies');
    expect(clean.content).toBe('One, two,');
    expect(clean.done).toBe(false);
    expect(clean.error?.code).toBe('upstream_error');
    expect(clean.error?.message).toContain('illegal memory access');
    expect(clean.error?.message).toContain('vl-dies');
  });

  it('the same error as the first event, and for stream: false: an HTTP 502 with the server message', async () => {
    for (const [model, stream] of [['dies-first', true], ['dies-first', false], ['dies', false]] as const) {
      const error = expectErrorAnswer(await failSvir.chat(ask(model, stream)), 502, 'upstream_error');
      expect(error.message, `${model} stream ${String(stream)}`).toContain('illegal memory access');
    }
  });

  it('finish reason abort: an error event naming the reason, not a whole-looking stop; stream: false is a 502', async () => {
    const clean = readCleanStream(await failSvir.chat(ask('aborts', true)), 'aborts');
    expect(clean.content).toBe('One, two,');
    expect(clean.finish).toBeNull();
    expect(clean.error?.code).toBe('upstream_error');
    expect(clean.error?.message).toContain('finish reason "abort"');
    const folded = expectErrorAnswer(await failSvir.chat(ask('aborts', false)), 502, 'upstream_error');
    expect(folded.message).toContain('finish reason "abort"');
  });
});
