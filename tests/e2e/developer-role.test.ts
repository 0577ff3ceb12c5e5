/**
 * pi's system prompt as a `developer` message on the chat route, end to end: vLLM, Ollama,
 * LM Studio, mlx-lm and mlx-vlm receive it as `system` with a note in x-svir-changes; OpenAI
 * and llama.cpp (which maps it itself) receive it as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { startMlxLmServer } from '../fakes/mlx-lm-server.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import { changesOf, readCleanStream, received, startSvir, type RigBackend, type SvirRig } from './backends-rig.js';

const NOTE = 'developer messages sent as system (the template may not know the role)';
const upstreams = new Map<string, ScriptedUpstream>();
let svir: SvirRig;

beforeAll(async () => {
  upstreams.set('vllm', await startVllmServer({ servedModelName: 'model-vllm' }));
  upstreams.set('ollama', await startOllamaServer({ models: [{ name: 'model-ollama', thinking: true, tools: true }] }));
  upstreams.set('lmstudio', await startLmStudioServer({ loadedModel: 'model-lmstudio' }));
  upstreams.set('mlx-lm', await startMlxLmServer());
  upstreams.set('mlx-vlm', await startMlxVlmServer());
  upstreams.set('llamacpp', await startLlamaCppServer());
  upstreams.set('openai', await startVllmServer({ servedModelName: 'model-openai' }));
  const backends: RigBackend[] = [...upstreams].map(([type, upstream]) => ({ name: `b-${type}`, type, upstream, models: [`model-${type}`] }));
  svir = await startSvir(backends);
});
afterAll(async () => {
  await svir.close();
  for (const upstream of upstreams.values()) await upstream.close();
});

describe.each([
  ['vllm', 'system'],
  ['ollama', 'system'],
  ['lmstudio', 'system'],
  ['mlx-lm', 'system'],
  ['mlx-vlm', 'system'],
  ['llamacpp', 'developer'],
  ['openai', 'developer'],
])('a developer message to %s', (type, role) => {
  it(`reaches it as ${role}`, async () => {
    const upstream = upstreams.get(type);
    if (upstream === undefined) throw new Error(`no fake for ${type}`);
    const before = upstream.requestsTo('POST', '/v1/chat/completions').length;
    const model = `model-${type}`;
    const answer = await svir.chat({
      model,
      stream: true,
      messages: [
        { role: 'developer', content: 'You are pi, a coding agent.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    readCleanStream(answer, model);
    const messages = received(upstream, before)['messages'];
    expect(messages).toEqual([
      { role, content: 'You are pi, a coding agent.' },
      { role: 'user', content: 'Say hello' },
    ]);
    if (role === 'system') expect(changesOf(answer)).toContain(NOTE);
    else expect(changesOf(answer)).not.toContain(NOTE);
  });
});
