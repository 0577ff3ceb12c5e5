/**
 * docs/contract.md#clean-dialect, sentence by sentence, through the built program: svir runs as a
 * child process in front of scripted upstreams (every byte they send is chosen here), and every
 * answer is read as raw bytes off the wire and held to the contract by harness/contract-stream.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, startScriptedUpstream, type Piece, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { checkChunks, expectContractStream, expectErrorShape, parseEvents } from './harness/contract-stream.js';
import { chat, send } from './harness/http.js';
import { startSvirProcess, type SvirProcess } from './harness/run-svir.js';

let up: ScriptedUpstream;
let open: ScriptedUpstream;
let svir: SvirProcess;
let fieldSvir: SvirProcess;

const MODEL = 'org/qwen3.8-27b';
const OPEN_MODEL = 'opened-think';

beforeAll(async () => {
  up = await startScriptedUpstream();
  up.models([MODEL]);
  open = await startScriptedUpstream();
  open.models([OPEN_MODEL]);
  // One backend discovered (URL without /v1 nor slash), one configured and whose template
  // opens <think> itself (URL with /v1/ and a trailing slash).
  const config = [
    'server:',
    '  port: 0',
    // Short enough for the keepalive case below, long enough that an upstream error reaches
    // the client before a keepalive commits the stream on a loaded machine (40 ms did not).
    '  keepaliveMs: 1000',
    'backends:',
    '  - name: scripted',
    '    type: openai',
    `    url: ${up.url}`,
    '  - name: opener',
    '    type: openai',
    `    url: ${open.url}/v1/`,
    `    models: [${OPEN_MODEL}]`,
    '    reasoningTags: open',
  ].join('\n');
  [svir, fieldSvir] = await Promise.all([
    startSvirProcess({ config }),
    startSvirProcess({
      config: `server: {port: 0}\nreasoning:\n  field: reasoning\nbackends:\n  - {name: scripted, type: openai, url: "${up.url}/v1"}\n`,
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([svir?.stop(), fieldSvir?.stop()]);
  await Promise.all([up?.close(), open?.close()]);
});

type Json = Record<string, unknown>;

/** An upstream chunk as an OpenAI-compatible server would send it. */
function ck(delta: Json, finish: string | null = null, extra: Json = {}): Json {
  return { id: 'up-1', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'server-side/path.gguf', choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

function script(upstream: ScriptedUpstream, pieces: Piece[], finish: 'end' | 'destroy' | 'hang' = 'end'): void {
  upstream.chat({ kind: 'sse', pieces, finish });
}

const ask = (extra: Json = {}): Json => ({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: true, ...extra });

describe('docs/contract.md#clean-dialect headers', () => {
  it('status 200, content-type exactly text/event-stream; charset=utf-8, no-cache, x-request-id, the backend', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'Hi' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(answer.headers.get('x-request-id')).toMatch(/\S/);
    expect(answer.headers.get('x-svir-backend')).toBe('scripted');
    // Nothing was changed in this request: nothing is listed.
    expect(answer.headers.get('x-svir-changes')).toBeNull();
    expectContractStream(answer.text, { model: MODEL });
  });

  it('x-request-id differs per request and a client-sent one is not echoed as svir\'s', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'Hi' }), ck({}, 'stop'), '[DONE]')]);
    const a = await chat(svir.url, ask(), { 'x-request-id': 'client-chosen' });
    const b = await chat(svir.url, ask());
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(a.headers.get('x-request-id')).toMatch(/\S/);
  });

  it('a change svir made for the backend is listed (tool_choice without tools dropped)', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'Hi' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask({ tool_choice: 'auto' }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-svir-changes')).toMatch(/tool_choice/);
    const sent = up.requestsTo('POST', '/v1/chat/completions').at(-1);
    expect(sent?.body).not.toHaveProperty('tool_choice');
  });

  it('the error answers carry x-request-id too', async () => {
    const answer = await chat(svir.url, { model: 'nobody-serves-this', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('x-request-id')).toMatch(/\S/);
  });
});

describe('docs/contract.md#clean-dialect framing', () => {
  it('CRLF, comments (ping and keepalive), event: message, id: and retry: upstream become plain data events with LF', async () => {
    const crlf = [
      ': ping\r\n\r\n',
      ': keepalive 10/200\r\n\r\n',
      'retry: 1000\r\nid: 7\r\nevent: message\r\n',
      `data: ${JSON.stringify(ck({ role: 'assistant', content: 'A' }))}\r\n\r\n`,
      `data: ${JSON.stringify(ck({ content: 'B' }))}\r\r`,
      `: ping\n\ndata: ${JSON.stringify(ck({}, 'stop'))}\n\n`,
      'data: [DONE]\r\n\r\n',
    ];
    script(up, crlf);
    const answer = await chat(svir.url, ask());
    const result = expectContractStream(answer.text, { model: MODEL });
    expect(result.content).toBe('AB');
    expect(answer.text).not.toMatch(/ping|event:|id:|retry:/);
  });

  it('an upstream event of several data: lines is one payload (joined with a line feed), sent as one line', async () => {
    const multi = `data: {"id":"up-1","object":"chat.completion.chunk","created":1760000000,\ndata: "model":"x","choices":[{"index":0,\ndata: "delta":{"role":"assistant","content":"joined"},"finish_reason":null}]}\n\n`;
    script(up, [multi, sse(ck({}, 'stop'), '[DONE]')]);
    expect(expectContractStream((await chat(svir.url, ask())).text, { model: MODEL }).content).toBe('joined');
  });

  it('reads split inside a line and inside a UTF-8 character arrive whole', async () => {
    const payload = JSON.stringify(ck({ role: 'assistant', content: 'héllo ✓' }));
    const bytes = Buffer.from(`data: ${payload}\n\n${sse(ck({}, 'stop'), '[DONE]')}`);
    const cut = bytes.indexOf(Buffer.from('✓')) + 1;
    script(up, [bytes.subarray(0, 9), bytes.subarray(9, cut), bytes.subarray(cut)]);
    const answer = await chat(svir.url, ask());
    expect(expectContractStream(answer.text, { model: MODEL }).content).toBe('héllo ✓');
  });

  it('keepalives while the first token is awaited are `: keepalive`, never `: ping`', async () => {
    script(up, [{ delayMs: 3000 }, sse(ck({ role: 'assistant', content: 'late' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(200);
    const result = expectContractStream(answer.text, { model: MODEL });
    expect(result.events.comments.length).toBeGreaterThan(0);
    expect(result.content).toBe('late');
  });
});

describe('docs/contract.md#clean-dialect chunks: keys, identity, model', () => {
  it('exactly the chunk keys, whatever extras the server adds (system_fingerprint, usage: null, timings, obfuscation)', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', content: 'x' }, null, { system_fingerprint: 'fp', usage: null, timings: { a: 1 }, obfuscation: 'zz', service_tier: 'default' }),
        ck({ content: 'y' }, null, { prompt_token_ids: null, prompt_text: null }),
        ck({}, 'stop', { usage: null }),
        '[DONE]',
      ),
    ]);
    expect(expectContractStream((await chat(svir.url, ask())).text, { model: MODEL }).content).toBe('xy');
  });

  it('id and created stay the same when the server changes them, and are made when missing or empty', async () => {
    script(up, [
      sse(
        { object: 'chat.completion.chunk', id: '', created: 0, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'a' }, finish_reason: null }] },
        { object: 'chat.completion.chunk', id: 'other', created: 99, model: 'm2', choices: [{ index: 0, delta: { content: 'b' }, finish_reason: null }] },
        { object: 'chat.completion.chunk', model: 'm3', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        '[DONE]',
      ),
    ]);
    const result = expectContractStream((await chat(svir.url, ask())).text, { model: MODEL });
    expect(result.content).toBe('ab');
    expect(result.chunks[0]?.id).not.toBe('');
  });

  it('model is the string the client sent, never the server\'s path', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask());
    expect(answer.text).not.toContain('server-side/path.gguf');
    expectContractStream(answer.text, { model: MODEL });
  });

  it('one choice, index 0: a second choice from the server is not passed on', async () => {
    const two = (content: string, finish: string | null = null): Json => ({
      ...ck({}),
      choices: [
        { index: 0, delta: { content }, finish_reason: finish },
        { index: 1, delta: { content: 'other choice' }, finish_reason: finish },
      ],
    });
    script(up, [sse(ck({ role: 'assistant', content: '' }), two('one'), two('', 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask());
    const result = expectContractStream(answer.text, { model: MODEL });
    expect(result.content).toBe('one');
    expect(answer.text).not.toContain('other choice');
  });

  it('delta keys: null keys, role on every delta, tool_call_id, name, function_call and audio never reach the client', async () => {
    const every = (delta: Json): Json => ck({ role: 'assistant', content: null, reasoning: null, reasoning_content: null, tool_calls: null, tool_call_id: null, name: null, refusal: null, audio: null, function_call: null, ...delta }, null, { usage: null });
    script(up, [sse(every({ content: 'He' }), every({ content: 'llo' }), every({}), { ...every({}), choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: 'stop', logprobs: null }] }, '[DONE]')]);
    expect(expectContractStream((await chat(svir.url, ask())).text, { model: MODEL }).content).toBe('Hello');
  });

  it('no empty delta except the first and the finish: empty strings and empty deltas mid-stream are dropped', async () => {
    script(up, [sse(ck({ role: 'assistant', content: '' }), ck({ content: '' }), ck({}), ck({ content: 'a' }), ck({ reasoning_content: '' }), ck({}), ck({}, 'stop'), '[DONE]')]);
    expect(expectContractStream((await chat(svir.url, ask())).text, { model: MODEL }).content).toBe('a');
  });

  it('one payload per delta: content and reasoning (or tool calls) in one server delta leave in separate chunks', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', reasoning_content: 'think', content: 'say' }),
        ck({ content: 'more', tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }),
        ck({}, 'tool_calls'),
        '[DONE]',
      ),
    ]);
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const result = expectContractStream((await chat(svir.url, ask({ tools }))).text, { model: MODEL });
    expect(result.reasoning).toBe('think');
    expect(result.content).toBe('saymore');
    expect(result.calls).toEqual([{ id: 'c1', name: 'get_weather', arguments: '{}' }]);
    expect(result.finish).toBe('tool_calls');
  });

  it('refusal arrives as refusal, alone in its delta', async () => {
    script(up, [sse(ck({ role: 'assistant', content: null, refusal: 'I cannot' }), ck({ refusal: ' do that.' }), ck({}, 'stop'), '[DONE]')]);
    const result = expectContractStream((await chat(svir.url, ask())).text, { model: MODEL });
    expect(result.refusal).toBe('I cannot do that.');
    expect(result.content).toBe('');
  });

  it('logprobs pass when asked and sent, and never as null', async () => {
    const lp = { content: [{ token: 'a', logprob: -0.1, bytes: [97], top_logprobs: [] }] };
    script(up, [
      sse(
        { ...ck({}), choices: [{ index: 0, delta: { role: 'assistant', content: 'a' }, logprobs: lp, finish_reason: null }] },
        { ...ck({}), choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
        '[DONE]',
      ),
    ]);
    const answer = await chat(svir.url, ask({ logprobs: true }));
    const result = expectContractStream(answer.text, { model: MODEL });
    const withLogprobs = result.chunks.filter((chunk) => JSON.stringify(chunk).includes('"logprobs"'));
    expect(withLogprobs.length).toBeGreaterThan(0);
    expect(answer.text).not.toContain('"logprobs":null');
  });
});

describe('docs/contract.md#clean-dialect more', () => {
  it('logprobs the client did not ask for are not passed on', async () => {
    const lp = { content: [{ token: 'a', logprob: -0.1, bytes: [97], top_logprobs: [] }] };
    script(up, [sse({ ...ck({}), choices: [{ index: 0, delta: { role: 'assistant', content: 'a' }, logprobs: lp, finish_reason: null }] }, ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask());
    expect(answer.text).not.toContain('logprobs');
    expectContractStream(answer.text, { model: MODEL });
  });

  it('the finish chunk is held until the upstream stream ends', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop')), { waitFor: held }, sse('[DONE]')]);
    const response = await fetch(`${svir.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ask()) });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"content":"a"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const sent = up.requestsTo('POST', '/v1/chat/completions').at(-1);
    // The server has written its finish; svir must not have passed it on yet.
    const next = reader.read();
    const early = await Promise.race([next.then(() => 'read'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 150))]);
    expect(sent?.piecesSent).toBe(1);
    expect(early).toBe('waiting');
    release();
    let rest = decoder.decode((await next).value ?? new Uint8Array(), { stream: true });
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    const result = expectContractStream(text + rest, { model: MODEL });
    expect(result.finish).toBe('stop');
  });

  it('stream: false carries the changes and backend headers too', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(svir.url, ask({ stream: false, tool_choice: 'none' }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-svir-backend')).toBe('scripted');
    expect(answer.headers.get('x-svir-changes')).toMatch(/tool_choice/);
  });

  it('stream: false makes call ids the server left out', async () => {
    script(up, [sse(ck({ role: 'assistant', content: null }), ck({ tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }), ck({}, 'stop'), '[DONE]')]);
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const answer = await chat(svir.url, ask({ stream: false, tools }));
    const message = (answer.json as { choices: { message: { tool_calls: { id: string }[] }; finish_reason: string }[] }).choices[0];
    expect(message?.message.tool_calls[0]?.id).toMatch(/\S/);
    expect(message?.finish_reason).toBe('tool_calls');
  });
});

describe('docs/contract.md#clean-dialect reasoning', () => {
  const carriers: [string, Piece[]][] = [
    ['reasoning_content', [sse(ck({ role: 'assistant', reasoning_content: 'Let me ' }), ck({ reasoning_content: 'think.' }), ck({ content: '\n\n' }), ck({ content: 'Four.' }), ck({}, 'stop'), '[DONE]')]],
    ['reasoning', [sse(ck({ role: 'assistant', reasoning: 'Let me ' }), ck({ reasoning: 'think.' }), ck({ content: '\n\n' }), ck({ content: 'Four.' }), ck({}, 'stop'), '[DONE]')]],
    [
      'both keys at once (mlx-vlm)',
      [sse(ck({ role: 'assistant', reasoning: 'Let me ', reasoning_content: 'Let me ' }), ck({ reasoning: 'think.', reasoning_content: 'think.' }), ck({ content: '\n\n' }), ck({ content: 'Four.' }), ck({}, 'stop'), '[DONE]')],
    ],
    [
      '<think> tags split anywhere in content',
      [sse(ck({ role: 'assistant', content: '<thi' }), ck({ content: 'nk>Let me ' }), ck({ content: 'think.</th' }), ck({ content: 'ink>\n\nFour.' }), ck({}, 'stop'), '[DONE]')],
    ],
  ];
  for (const [name, pieces] of carriers) {
    it(`${name} → reasoning_content, once, never in content; the "\\n\\n" after it only separates, and the answer starts at its first word`, async () => {
      script(up, pieces);
      const answer = await chat(svir.url, ask());
      const result = expectContractStream(answer.text, { model: MODEL });
      expect(result.reasoning).toBe('Let me think.');
      expect(result.content).toBe('Four.');
      expect(answer.text).not.toContain('"reasoning"');
    });
  }

  it('a template that opened <think> itself (reasoningTags: open): the text before </think> is reasoning', async () => {
    script(open, [sse(ck({ role: 'assistant', content: 'Let me think.</think>' }), ck({ content: '\n\nFour.' }), ck({}, 'stop'), '[DONE]')]);
    const result = expectContractStream((await chat(svir.url, { ...ask(), model: OPEN_MODEL })).text, { model: OPEN_MODEL });
    expect(result.reasoning).toBe('Let me think.');
    expect(result.content).toBe('Four.');
  });

  it('reasoning.field: reasoning → the reasoning goes out under `reasoning`, and reasoning_content never appears', async () => {
    script(up, [sse(ck({ role: 'assistant', reasoning_content: 'Let me think.' }), ck({ content: 'Four.' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(fieldSvir.url, ask());
    const result = expectContractStream(answer.text, { model: MODEL, reasoningField: 'reasoning' });
    expect(result.reasoning).toBe('Let me think.');
    expect(answer.text).not.toContain('reasoning_content');
  });

  it('reasoning.field in a stream: false answer too', async () => {
    script(up, [sse(ck({ role: 'assistant', reasoning: 'Let me think.' }), ck({ content: 'Four.' }), ck({}, 'stop'), '[DONE]')]);
    const answer = await chat(fieldSvir.url, ask({ stream: false }));
    expect(answer.status).toBe(200);
    const message = (answer.json as { choices: { message: Json }[] }).choices[0]?.message;
    expect(message?.reasoning).toBe('Let me think.');
    expect(message).not.toHaveProperty('reasoning_content');
  });
});

describe('docs/contract.md#clean-dialect tool calls', () => {
  const tools = ['look', 'lookup', 'get_weather'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));

  it('the recorded interleaved example: split names, one call after the other, whole names, finish tool_calls', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', reasoning_content: '...' }),
        ck({ tool_calls: [{ index: 0, id: 'call-a', type: 'function', function: { name: 'look', arguments: '{"value":' } }, { index: 1, id: 'call-b', type: 'function', function: { name: 'lookup', arguments: '{"value":' } }] }),
        ck({ tool_calls: [{ index: 1, function: { arguments: '2}' } }, { index: 0, function: { name: 'up', arguments: '1}' } }] }),
        ck({}, 'tool_calls'),
        { ...ck({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 } },
        '[DONE]',
      ),
    ]);
    const result = expectContractStream((await chat(svir.url, ask({ tools }))).text, { model: MODEL });
    expect(result.calls).toEqual([
      { id: 'call-a', name: 'lookup', arguments: '{"value":1}' },
      { id: 'call-b', name: 'lookup', arguments: '{"value":2}' },
    ]);
    expect(result.finish).toBe('tool_calls');
    expect(result.usage).toBeUndefined();
  });

  it('missing and repeated ids are made unique; a call finished with stop is tool_calls', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', content: null }),
        ck({ tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }),
        ck({ tool_calls: [{ index: 1, id: 'dup', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }),
        ck({ tool_calls: [{ index: 2, id: 'dup', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }),
        ck({}, 'stop'),
        '[DONE]',
      ),
    ]);
    const result = expectContractStream((await chat(svir.url, ask({ tools }))).text, { model: MODEL });
    expect(result.calls.map((c) => c.name)).toEqual(['get_weather', 'get_weather', 'get_weather']);
    expect(new Set(result.calls.map((c) => c.id)).size).toBe(3);
    expect(result.finish).toBe('tool_calls');
  });

  it('a name that another declared tool extends is held until it is whole', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', content: null }),
        ck({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'look', arguments: '' } }] }),
        ck({ tool_calls: [{ index: 0, function: { name: 'up', arguments: '{"value":' } }] }),
        ck({ tool_calls: [{ index: 0, function: { arguments: '3}' } }] }),
        ck({}, 'tool_calls'),
        '[DONE]',
      ),
    ]);
    const result = expectContractStream((await chat(svir.url, ask({ tools }))).text, { model: MODEL });
    expect(result.calls).toEqual([{ id: 'c', name: 'lookup', arguments: '{"value":3}' }]);
  });

  it('length outranks tool_calls', async () => {
    script(up, [sse(ck({ role: 'assistant', content: null }), ck({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] }), ck({}, 'length'), '[DONE]')]);
    const result = expectContractStream((await chat(svir.url, ask({ tools }))).text, { model: MODEL });
    expect(result.finish).toBe('length');
  });
});

describe('docs/contract.md#clean-dialect finish, usage, end', () => {
  it('finish appears once, on the last choice chunk, even when the server repeats it or sends content after it', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), ck({ content: 'b' }), ck({}, 'stop'), '[DONE]')]);
    const result = expectContractStream((await chat(svir.url, ask())).text, { model: MODEL });
    expect(result.finish).toBe('stop');
  });

  it('the finish is held until the upstream ends: a filtered verdict after the stop makes it content_filter', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', content: 'bad words' }),
        ck({}, 'stop'),
        { choices: [{ index: 0, finish_reason: null, content_filter_offsets: { check_offset: 1, start_offset: 1, end_offset: 9 }, content_filter_results: { custom_blocklists: [{ filtered: true, id: 'svir' }] } }], created: 0, id: '', model: '', object: '' },
        '[DONE]',
      ),
    ]);
    // An azure verdict is read by the azure adapter only; this upstream is openai-typed, so the
    // finish must at least still be one, on the last choice chunk.
    const result = expectContractStream((await chat(svir.url, ask())).text, { model: MODEL });
    expect(['stop', 'content_filter']).toContain(result.finish);
  });

  it('a finish the server never sent is stop', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), '[DONE]')]);
    expect(expectContractStream((await chat(svir.url, ask())).text, { model: MODEL }).finish).toBe('stop');
  });

  it('unknown finish reasons map into the four', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'eos_reached'), '[DONE]')]);
    expect(expectContractStream((await chat(svir.url, ask())).text, { model: MODEL }).finish).toBe('stop');
  });

  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, completion_tokens_details: { reasoning_tokens: 2, audio_tokens: 0 }, prompt_tokens_details: { cached_tokens: 4 } };
  const withUsage = (): Piece[] => [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), { ...ck({}), object: 'chat.completion', choices: [], usage, timings: { x: 1 } }, '[DONE]')];

  it('usage is never forwarded unasked (svir asks upstream for it anyway)', async () => {
    script(up, withUsage());
    const answer = await chat(svir.url, ask());
    const result = expectContractStream(answer.text, { model: MODEL });
    expect(result.usage).toBeUndefined();
    const sent = up.requestsTo('POST', '/v1/chat/completions').at(-1)?.body as Json;
    expect(sent.stream).toBe(true);
  });

  it('usage when asked: one chunk with choices: [] after the finish, with the counts and details the server gave', async () => {
    script(up, withUsage());
    const result = expectContractStream((await chat(svir.url, ask({ stream_options: { include_usage: true } }))).text, { model: MODEL, includeUsage: true });
    expect(result.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, completion_tokens_details: { reasoning_tokens: 2 }, prompt_tokens_details: { cached_tokens: 4 } });
  });

  it('usage is never invented: asked, but the server sent none', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), '[DONE]')]);
    const result = expectContractStream((await chat(svir.url, ask({ stream_options: { include_usage: true } }))).text, { model: MODEL, includeUsage: true });
    expect(result.usage).toBeUndefined();
  });

  it('[DONE], then the response closes, even when the server keeps its connection open after [DONE]', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), '[DONE]')], 'hang');
    const answer = await chat(svir.url, ask());
    expectContractStream(answer.text, { model: MODEL });
  });

  it('nothing after [DONE] reaches the client', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), '[DONE]', ck({ content: 'ghost' }))]);
    const answer = await chat(svir.url, ask());
    expect(answer.text).not.toContain('ghost');
    expectContractStream(answer.text, { model: MODEL });
  });
});

describe('docs/contract.md#clean-dialect failures: error event after the headers, real status before', () => {
  it('an error chunk mid-stream ends with one error event in the one shape, and no [DONE]', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'partial' }), { error: { code: 500, message: 'The model produced output that does not match the expected peg-native format', type: 'server_error' } })]);
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(200);
    const events = parseEvents(answer.text);
    expect(events.done).toBe(false);
    expectErrorShape(events.error, 'upstream_error');
    checkChunks(events, { model: MODEL });
  });

  it('finish reasons that mean a cut answer (abort, error) end with an upstream_error event naming the reason', async () => {
    for (const reason of ['abort', 'error']) {
      script(up, [sse(ck({ role: 'assistant', content: 'partial' }), ck({}, reason), '[DONE]')]);
      const answer = await chat(svir.url, ask());
      expect(answer.status).toBe(200);
      const events = parseEvents(answer.text);
      expect(events.done).toBe(false);
      expectErrorShape(events.error, 'upstream_error');
      expect(JSON.stringify(events.error)).toContain(`finish reason \\"${reason}\\"`);
      checkChunks(events, { model: MODEL });
    }
  });

  it('an error chunk without an error key (older vLLM) mid-stream is an error event keeping its message', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'partial' }), { object: 'error', message: 'EngineCore died', type: 'InternalServerError', param: null, code: 500 })]);
    const answer = await chat(svir.url, ask());
    const events = parseEvents(answer.text);
    expect(events.done).toBe(false);
    expectErrorShape(events.error, 'upstream_error');
    expect(JSON.stringify(events.error)).toContain('EngineCore died');
  });

  it('a stream cut mid-way ends with an error event, no [DONE]', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'partial' })), { delayMs: 100 }], 'destroy');
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(200);
    const events = parseEvents(answer.text);
    expect(events.done).toBe(false);
    expectErrorShape(events.error, 'upstream_error');
  });

  it('a stream that ends without [DONE] and without a finish is an error, not a complete answer', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'partial' })), { delayMs: 100 }], 'end');
    const events = parseEvents((await chat(svir.url, ask())).text);
    expect(events.done).toBe(false);
    expectErrorShape(events.error);
  });

  it('a cut before anything was generated is a real status', async () => {
    script(up, [sse(ck({ role: 'assistant', content: null }))], 'destroy');
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(502);
    expectErrorShape(answer.json, 'upstream_error');
  });

  it('an error before any chunk (after a role-only first delta) is a real HTTP status, not a 200', async () => {
    script(up, [sse(ck({ role: 'assistant', content: null }), { error: { code: 500, message: 'boom', type: 'server_error' } })]);
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(502);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expectErrorShape(answer.json, 'upstream_error');
  });

  it('LM Studio\'s event: error before anything is a real status', async () => {
    script(up, [`event: error\ndata: ${JSON.stringify({ error: { message: 'The number of tokens to keep from the initial prompt is greater than the context length.' }, message: 'x' })}\n\n`]);
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(400);
    expect(expectErrorShape(answer.json, 'context_length_exceeded').message).toContain('maximum context length');
  });

  it('a 200 that is not an event stream is 502 upstream_error', async () => {
    up.chat({ kind: 'body', status: 200, body: { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] } });
    const answer = await chat(svir.url, ask());
    expect(answer.status).toBe(502);
    expectErrorShape(answer.json, 'upstream_error');
  });
});

describe('stream: false folds the same stream', () => {
  it('one chat.completion with the client\'s model, the content, the reasoning, the calls and the usage', async () => {
    script(up, [
      sse(
        ck({ role: 'assistant', reasoning_content: 'hmm' }),
        ck({ content: 'Call:' }),
        ck({ tool_calls: [{ index: 0, id: 'c9', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
        ck({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        ck({}, 'tool_calls'),
        { ...ck({}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
        '[DONE]',
      ),
    ]);
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const answer = await chat(svir.url, ask({ stream: false, tools }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('x-svir-backend')).toBe('scripted');
    expect(answer.headers.get('x-request-id')).toMatch(/\S/);
    const body = answer.json as Json;
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe(MODEL);
    expect(typeof body.id === 'string' && body.id.length > 0).toBe(true);
    expect(Number.isInteger(body.created)).toBe(true);
    const choices = body.choices as Json[];
    expect(choices).toHaveLength(1);
    expect(choices[0]?.index).toBe(0);
    expect(choices[0]?.finish_reason).toBe('tool_calls');
    const message = choices[0]?.message as Json;
    expect(message.role).toBe('assistant');
    expect(message.content).toBe('Call:');
    expect(message.reasoning_content).toBe('hmm');
    expect(message.tool_calls).toEqual([{ id: 'c9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }]);
    expect(body.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it('a failure mid-stream folds into an error status, never a partial 200', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'partial' }), { error: { message: 'died' } })]);
    const answer = await chat(svir.url, ask({ stream: false }));
    expect(answer.status).toBe(502);
    expectErrorShape(answer.json, 'upstream_error');
  });

  it('stream omitted is stream: false', async () => {
    script(up, [sse(ck({ role: 'assistant', content: 'a' }), ck({}, 'stop'), '[DONE]')]);
    const { stream: _stream, ...body } = ask();
    const answer = await chat(svir.url, body);
    expect((answer.json as Json).object).toBe('chat.completion');
    expect((up.requestsTo('POST', '/v1/chat/completions').at(-1)?.body as Json).stream).toBe(true);
  });
});

describe('GET /v1/models', () => {
  it('the OpenAI list shape with every model svir routes', async () => {
    const answer = await send(`${svir.url}/v1/models`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(/\S/);
    const body = answer.json as { object: string; data: Json[] };
    expect(body.object).toBe('list');
    const ids = body.data.map((model) => model.id);
    expect(ids).toContain(MODEL);
    expect(ids).toContain(OPEN_MODEL);
    for (const model of body.data) {
      expect(model.object).toBe('model');
      expect(typeof model.id).toBe('string');
      expect(Number.isInteger(model.created)).toBe(true);
      expect(typeof model.owned_by).toBe('string');
    }
  });
});
