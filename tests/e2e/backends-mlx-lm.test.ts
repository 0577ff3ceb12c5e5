/**
 * svir in front of a fake mlx-lm: the client gets the clean dialect, and each request reached
 * the server in the form it keeps (docs/wire-protocol.md#messages, #tools, #optional-fields,
 * #structured-output, #sse-framing, #usage).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockerTool, PNG_DATA_URL, weatherTool } from '../adapters/chat.js';
import { MARKDOWN_TABLE, startMlxLmServer } from '../fakes/mlx-lm-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { changesOf, expectErrorAnswer, readCleanStream, received, startSvir, type SvirRig } from './backends-rig.js';

let mlx: ScriptedUpstream;
let svir: SvirRig;
const MODEL = 'qwen3.8-27b-mlx';

beforeAll(async () => {
  mlx = await startMlxLmServer();
  svir = await startSvir([{ name: 'mlx', type: 'mlx-lm', upstream: mlx, urlPath: '/', models: [MODEL] }]);
});
afterAll(async () => {
  await svir.close();
  await mlx.close();
});

const count = (): number => mlx.requestsTo('POST', '/v1/chat/completions').length;

describe('mlx-lm through svir', () => {
  it('reads keepalives, the role on every delta and its usage chunk into the clean dialect', async () => {
    const answer = await svir.chat({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Count to five' }] });
    const clean = readCleanStream(answer, MODEL);
    expect(answer.text).not.toContain(': keepalive 1');
    expect(clean.reasoning).toBe('The user wants me to count from one to five.');
    expect(clean.content).toBe('One, two, three, four, five.');
    expect(clean.usage).toMatchObject({ completion_tokens: 16, prompt_tokens_details: { cached_tokens: 3 } });
  });

  it('refuses an image with 400 before sending (it would answer 404)', async () => {
    const before = count();
    const error = expectErrorAnswer(
      await svir.chat({ model: MODEL, stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }] }),
      400,
      'unsupported_content',
    );
    expect(error.message).toContain('mlx');
    expect(count()).toBe(before);
  });

  it('sends no tools under none, since it reads no tool_choice and the model would call one', async () => {
    const before = count();
    const answer = await svir.chat({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Open locker 4' }], tools: [lockerTool], tool_choice: 'none' });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.toolCalls).toEqual([]);
    expect(clean.finish).toBe('stop');
    expect(received(mlx, before)).not.toHaveProperty('tools');
  });

  it('offers only the named tool', async () => {
    const before = count();
    const answer = await svir.chat({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'Open locker 4' }],
      tools: [weatherTool, lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
    });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.toolCalls).toEqual([{ id: 'call_6b1f', name: 'open_locker', arguments: '{"number":4}' }]);
    expect(clean.finish).toBe('tool_calls');
    const sent = received(mlx, before);
    expect(sent.tools).toEqual([lockerTool]);
    expect(sent).not.toHaveProperty('tool_choice');
    expect(changesOf(answer)).toEqual(['tool_choice function "open_locker": only that tool offered (a call is not forced)']);
  });

  it('sends the effort as chat_template_kwargs.enable_thinking, which its template reads', async () => {
    const before = count();
    const answer = await svir.chat({ model: MODEL, stream: true, reasoning_effort: 'none', messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.reasoning).toBe('');
    expect(clean.content).toBe('Hello!');
    const sent = received(mlx, before);
    expect(sent.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(sent).not.toHaveProperty('reasoning_effort');
  });

  it('says that it cannot constrain output', async () => {
    const answer = await svir.chat({ model: MODEL, reasoning_effort: 'none', messages: [{ role: 'user', content: 'Which locker?' }], response_format: { type: 'json_schema', json_schema: { name: 'locker', schema: { type: 'object' } } } });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ choices: [{ message: { content: MARKDOWN_TABLE } }] });
    expect(changesOf(answer)).toContain('response_format not enforced: mlx-lm cannot constrain output');
  });
});
