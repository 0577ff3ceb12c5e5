/**
 * svir in front of a fake mlx-vlm: the client gets the clean dialect, and each request reached
 * the server in the form it keeps (docs/wire-protocol.md#messages, #tools, #optional-fields,
 * #chunks, #reasoning, #http-errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockerTool, PNG_DATA_URL } from '../adapters/chat.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { expectErrorAnswer, readCleanStream, received, startSvir, type SvirRig } from './backends-rig.js';

let vlm: ScriptedUpstream;
let limited: ScriptedUpstream;
let svir: SvirRig;
const MODEL = 'qwen3.8-27b-vlm';

beforeAll(async () => {
  vlm = await startMlxVlmServer();
  limited = await startMlxVlmServer({ maxKvSize: 500, defaultMaxTokens: 8192 });
  svir = await startSvir([
    { name: 'vlm', type: 'mlx-vlm', upstream: vlm, models: [MODEL] },
    { name: 'vlm-limited', type: 'mlx-vlm', upstream: limited, models: ['qwen3.8-limited'] },
  ]);
});
afterAll(async () => {
  await svir.close();
  await vlm.close();
  await limited.close();
});

describe('mlx-vlm through svir', () => {
  it('reads reasoning sent under two keys once, and passes over null keys, logprobs, usage null and timings', async () => {
    const answer = await svir.chat({ model: MODEL, stream: true, stream_options: { include_usage: true }, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.reasoning).toBe('A greeting is enough.');
    expect(clean.content).toBe('Hello!');
    expect(answer.text).not.toContain('timings');
    expect(answer.text).not.toContain('tool_call_id');
    expect(answer.text).not.toContain('logprobs');
    expect(clean.usage).toEqual({ prompt_tokens: 9, completion_tokens: 14, total_tokens: 23, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('keeps tool_choice, the effort and images as sent', async () => {
    const before = vlm.requestsTo('POST', '/v1/chat/completions').length;
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'Open the locker in the photo' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }];
    const answer = await svir.chat({ model: MODEL, stream: true, reasoning_effort: 'low', messages, tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.toolCalls).toEqual([{ id: 'call_vlm_1', name: 'open_locker', arguments: '{"number":4}' }]);
    expect(received(vlm, before)).toMatchObject({ messages, tool_choice: { type: 'function', function: { name: 'open_locker' } }, reasoning_effort: 'low' });
  });

  it('reads both of its context wordings as 400 context_length_exceeded', async () => {
    const reservation = expectErrorAnswer(await svir.chat({ model: 'qwen3.8-limited', messages: [{ role: 'user', content: 'hi' }] }), 400, 'context_length_exceeded');
    expect(reservation.message).toContain('maximum context length');
    expect(reservation.message).toContain('Output reservation leaves no room');
    const protectedTurn = expectErrorAnswer(
      await svir.chat({ model: 'qwen3.8-limited', max_tokens: 100, messages: [{ role: 'user', content: 'z'.repeat(450) }] }),
      400,
      'context_length_exceeded',
    );
    expect(protectedTurn.message).toContain('Protected conversation exceeds');
  });
});
