/**
 * The real `openai` npm client on svir's legacy routes: `embeddings.create` (which asks for
 * base64 by default and decodes it as float32) over a server that honours `encoding_format`
 * (llama.cpp) and over ones that send floats regardless (LM Studio, mlx-vlm), and
 * `completions.create`, streamed and not, with `suffix` where the server fills in the middle.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvir, SVIR_KEY, type SvirRig } from '../e2e/backends-rig.js';
import { startAzureServer } from '../fakes/azure-server.js';
import { embeddingOf, FILLED_MIDDLE } from '../fakes/fake-legacy.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';

const upstreams: ScriptedUpstream[] = [];
let svir: SvirRig;
let client: OpenAI;

beforeAll(async () => {
  const llc = await startLlamaCppServer({ embeddings: true });
  const lms = await startLmStudioServer();
  const vlm = await startMlxVlmServer();
  const az = await startAzureServer();
  upstreams.push(llc, lms, vlm, az);
  svir = await startSvir([
    { name: 'llc', type: 'llamacpp', upstream: llc, models: ['gguf-embed'] },
    { name: 'lms', type: 'lmstudio', upstream: lms, models: ['nomic-embed', 'qwen3.8-27b'] },
    { name: 'vlm', type: 'mlx-vlm', upstream: vlm, models: ['vlm-embed'] },
    { name: 'az', type: 'azure', upstream: az, urlPath: '', models: ['my-deployment'], apiKey: 'azure-test-key' },
  ]);
  client = new OpenAI({ baseURL: `${svir.url}/v1`, apiKey: SVIR_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await svir.close();
  await Promise.all(upstreams.map((upstream) => upstream.close()));
});

describe('openai SDK: embeddings.create', () => {
  it('decodes the default base64 answer into the vectors, whatever the server does with encoding_format', async () => {
    for (const model of ['gguf-embed', 'nomic-embed', 'vlm-embed']) {
      const answer = await client.embeddings.create({ model, input: ['hello', 'svir'] });
      expect(answer.model).toBe(model);
      expect(answer.data.map((item) => item.embedding)).toEqual([embeddingOf('hello'), embeddingOf('svir')]);
    }
  });

  it('returns floats as floats when the client asks for them', async () => {
    const answer = await client.embeddings.create({ model: 'nomic-embed', input: 'hello', encoding_format: 'float' });
    expect(answer.data[0]?.embedding).toEqual(embeddingOf('hello'));
  });

  it('raises the SDK error class of the one error shape for a model svir does not serve', async () => {
    await expect(client.embeddings.create({ model: 'my-deployment-missing', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('openai SDK: completions.create', () => {
  it('reads a folded answer', async () => {
    const answer = await client.completions.create({ model: 'qwen3.8-27b', prompt: 'Count to five', max_tokens: 20 });
    expect(answer.object).toBe('text_completion');
    expect(answer.model).toBe('qwen3.8-27b');
    expect(answer.choices[0]?.text).toBe(' one, two, three, four, five.');
    expect(answer.choices[0]?.finish_reason).toBe('stop');
    expect(answer.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('reads a stream, with usage when asked', async () => {
    const stream = await client.completions.create({ model: 'qwen3.8-27b', prompt: 'Once upon a time', stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    expect(text).toBe(' there was a locker numbered four.');
    expect(finish).toBe('stop');
    expect(usage).toBeGreaterThan(0);
  });

  it('fills in the middle where the server takes suffix, and gets a BadRequestError naming suffix where it does not', async () => {
    const filled = await client.completions.create({ model: 'my-deployment', prompt: 'def add(a, b):\n    return a', suffix: '\n' });
    expect(filled.choices[0]?.text).toBe(FILLED_MIDDLE);
    const refused = client.completions.create({ model: 'qwen3.8-27b', prompt: 'def add(a, b):\n    return a', suffix: '\n' });
    await expect(refused).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(refused).rejects.toMatchObject({ param: 'suffix' });
  });
});
