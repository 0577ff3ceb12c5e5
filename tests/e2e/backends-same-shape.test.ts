/**
 * The same requests, through the openai npm client, to svir in front of one fake server of every
 * backend type: the client gets the same clean answer shape from each, whatever the server's
 * dialect (docs/contract.md#clean-dialect; issue 3 "done when").
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { lockerTool, weatherTool } from '../adapters/chat.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';
import { startFakeOfEveryType } from './start-fake-of-every-type.js';

const upstreams: ScriptedUpstream[] = [];
let svir: SvirRig;
let client: OpenAI;

/** The model a client asks for on each backend type. */
const MODEL_OF = Object.fromEntries(BACKEND_TYPES.map((type) => [type, `model-${type}`]));

beforeAll(async () => {
  const backends = await startFakeOfEveryType();
  upstreams.push(...backends.map((backend) => backend.upstream));
  svir = await startSvir(backends);
  client = new OpenAI({ baseURL: `${svir.url}/v1`, apiKey: SVIR_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await svir.close();
  for (const upstream of upstreams) await upstream.close();
});

interface Shape {
  chunkKeys: string[];
  roleFirstOnly: boolean;
  ids: number;
  content: string;
  reasoningInContent: boolean;
  calls: { name: string; arguments: string }[];
  callIdsPresent: boolean;
  finish: (string | null)[];
  usageKeys: string[] | null;
}

async function streamShape(type: string, params: Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'model' | 'stream'>): Promise<Shape> {
  const stream = await client.chat.completions.create({ ...params, model: MODEL_OF[type] ?? '', stream: true });
  const keys = new Set<string>();
  const ids = new Set<string>();
  let roles = 0;
  let firstHadRole = false;
  let index = 0;
  let content = '';
  let reasoning = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  const finish: (string | null)[] = [];
  let usageKeys: string[] | null = null;
  for await (const chunk of stream) {
    keys.add(Object.keys(chunk).sort().join(','));
    ids.add(chunk.id);
    expect(chunk.model).toBe(MODEL_OF[type]);
    if (chunk.usage) usageKeys = Object.keys(chunk.usage).filter((key) => ['prompt_tokens', 'completion_tokens', 'total_tokens'].includes(key)).sort();
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    if (choice.delta.role !== undefined) {
      roles += 1;
      if (index === 0) firstHadRole = true;
    }
    index += 1;
    content += choice.delta.content ?? '';
    const extra: Record<string, unknown> = { ...choice.delta };
    if (typeof extra.reasoning_content === 'string') reasoning += extra.reasoning_content;
    for (const piece of choice.delta.tool_calls ?? []) {
      const call = calls[piece.index];
      if (call === undefined) calls.push({ id: piece.id ?? '', name: piece.function?.name ?? '', arguments: piece.function?.arguments ?? '' });
      else call.arguments += piece.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) finish.push(choice.finish_reason);
  }
  return {
    chunkKeys: [...keys].sort(),
    roleFirstOnly: roles === 1 && firstHadRole,
    ids: ids.size,
    content: content.trim(),
    reasoningInContent: reasoning.length > 0 && content.includes(reasoning.trim()),
    calls: calls.map(({ name, arguments: args }) => ({ name, arguments: args })),
    callIdsPresent: calls.every((call) => call.id.length > 0),
    finish,
    usageKeys,
  };
}

describe('the same request to every backend type', () => {
  it('has one backend of every type', () => {
    expect(Object.keys(MODEL_OF).sort()).toEqual([...BACKEND_TYPES].sort());
  });

  it('a streamed answer with usage: the same shape from each', async () => {
    for (const type of BACKEND_TYPES) {
      const shape = await streamShape(type, { messages: [{ role: 'user', content: 'Say hello' }], reasoning_effort: 'low', stream_options: { include_usage: true } });
      expect(shape, type).toEqual({
        chunkKeys: ['choices,created,id,model,object', 'choices,created,id,model,object,usage'],
        roleFirstOnly: true,
        ids: 1,
        content: 'Hello!',
        reasoningInContent: false,
        calls: [],
        callIdsPresent: true,
        finish: ['stop'],
        usageKeys: ['completion_tokens', 'prompt_tokens', 'total_tokens'],
      });
    }
  });

  it('a call of a named function: the same call and finish from each', async () => {
    for (const type of BACKEND_TYPES) {
      const shape = await streamShape(type, {
        messages: [{ role: 'user', content: 'Open locker 4' }],
        tools: [weatherTool, lockerTool],
        tool_choice: { type: 'function', function: { name: 'open_locker' } },
      });
      expect(shape, type).toEqual({
        chunkKeys: ['choices,created,id,model,object'],
        roleFirstOnly: true,
        ids: 1,
        content: '',
        reasoningInContent: false,
        calls: [{ name: 'open_locker', arguments: '{"number":4}' }],
        callIdsPresent: true,
        finish: ['tool_calls'],
        usageKeys: null,
      });
    }
  });

  it('tool_choice none, not streamed: the same answer without a call from each', async () => {
    for (const type of BACKEND_TYPES) {
      const completion = await client.chat.completions.create({
        model: MODEL_OF[type] ?? '',
        messages: [{ role: 'user', content: 'Open locker 4' }],
        tools: [lockerTool],
        tool_choice: 'none',
      });
      // Every server here reports usage (svir always asks upstream), and a completion carries it.
      expect(Object.keys(completion).sort(), type).toEqual(['choices', 'created', 'id', 'model', 'object', 'usage']);
      expect(Object.keys(completion.usage ?? {}).filter((key) => key.endsWith('_tokens')).sort(), type).toEqual(['completion_tokens', 'prompt_tokens', 'total_tokens']);
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(MODEL_OF[type]);
      const [choice] = completion.choices;
      expect(choice?.finish_reason, type).toBe('stop');
      expect(choice?.message.tool_calls, type).toBeUndefined();
      expect(choice?.message.content?.trim(), type).toBe('OK.');
    }
  });
});
