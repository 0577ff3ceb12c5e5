/**
 * The pure request side of the legacy routes: each adapter's endpoint for `completions` and
 * `embeddings` (bearer or Azure's routes), the body as sent but for the model id and a stream
 * with usage, `suffix` refused or passed by what the server takes, a route the server lacks
 * refused; and the embeddings answer fitted to the `encoding_format` asked.
 */
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { completionCall } from '../../src/adapters/request/completion-call.js';
import { embeddingCall } from '../../src/adapters/request/embedding-call.js';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { SvirError } from '../../src/errors.js';
import { decodeFloat32Base64, encodeFloat32Base64, fitEmbeddings } from '../../src/normalize/fit-embeddings.js';
import { makeBackend } from './make-backend.js';

describe('legacy calls', () => {
  it('builds each route under the base URL with the bearer key, and Azure routes with its api-key header', () => {
    const keyed = makeBackend('vllm', { url: 'http://127.0.0.1:8000', apiKey: 'k-1' });
    expect(getAdapter('vllm').endpoint('completions', keyed, 'm')).toEqual({ url: 'http://127.0.0.1:8000/v1/completions', headers: { authorization: 'Bearer k-1' } });
    expect(getAdapter('lmstudio').endpoint('embeddings', makeBackend('lmstudio', { url: 'http://127.0.0.1:1234/v1/' }), 'm')).toEqual({
      url: 'http://127.0.0.1:1234/v1/embeddings',
      headers: {},
    });
    const azure = getAdapter('azure');
    expect(azure.endpoint('embeddings', makeBackend('azure', { url: 'https://res.openai.azure.com/', apiKey: 'az' }), 'my-deployment')).toEqual({
      url: 'https://res.openai.azure.com/openai/v1/embeddings',
      headers: { 'api-key': 'az' },
    });
    expect(
      azure.endpoint('completions', makeBackend('azure', { url: 'https://res.openai.azure.com/openai', apiKey: 'az', apiVersion: '2024-10-21' }), 'my deployment').url,
    ).toBe('https://res.openai.azure.com/openai/deployments/my%20deployment/completions?api-version=2024-10-21');
  });

  it('sends a completion body as sent but for the model id, always streamed with usage', () => {
    const call = completionCall(getAdapter('vllm'), { model: 'alias', prompt: 'Hi', max_tokens: 5, top_k: 3, stream_options: { extra: 1 } }, makeBackend('vllm'), 'served');
    if (!call.ok) throw call.error;
    expect(call.call.body).toEqual({ model: 'served', prompt: 'Hi', max_tokens: 5, top_k: 3, stream: true, stream_options: { extra: 1, include_usage: true } });
    expect(call.call.changes).toEqual([]);
  });

  it('sends a list of one prompt as that string to a server that reads only a string, refuses token ids there, and passes both elsewhere', () => {
    const ollama = completionCall(getAdapter('ollama'), { model: 'm', prompt: ['Count'] }, makeBackend('ollama'), 'm');
    if (!ollama.ok) throw ollama.error;
    expect(ollama.call.body.prompt).toBe('Count');
    expect(ollama.call.changes).toEqual(['prompt list of one sent as a string']);
    const tokens = completionCall(getAdapter('mlx-lm'), { model: 'm', prompt: [1, 2, 3] }, makeBackend('mlx-lm'), 'm');
    expect(tokens.ok === false && tokens.error).toMatchObject({ code: 'invalid_request', param: 'prompt' });
    const vllm = completionCall(getAdapter('vllm'), { model: 'm', prompt: [[1, 2, 3]] }, makeBackend('vllm'), 'm');
    expect(vllm.ok && vllm.call.body.prompt).toEqual([[1, 2, 3]]);
  });

  it('passes suffix to the types that take it and refuses it, naming suffix, for the others', () => {
    for (const type of BACKEND_TYPES) {
      const adapter = getAdapter(type);
      const served = adapter.legacy.completions;
      const call = completionCall(adapter, { model: 'm', prompt: 'a', suffix: 'b' }, makeBackend(type), 'm');
      if (served === null) {
        expect(call.ok).toBe(false);
        continue;
      }
      if (served.suffix) {
        expect(call.ok && call.call.body.suffix).toBe('b');
      } else {
        expect(call.ok).toBe(false);
        if (!call.ok) expect(call.error).toMatchObject({ code: 'invalid_request', param: 'suffix' });
      }
    }
    expect(getAdapter('openai').legacy.completions?.suffix).toBe(true);
    expect(getAdapter('llamacpp').legacy.completions?.suffix).toBe(false);
    expect(getAdapter('mlx-vlm').legacy.completions).toBeNull();
    expect(getAdapter('mlx-lm').legacy.embeddings).toBe(false);
  });

  it('sends an embeddings body as sent but for the model id, encoding_format included', () => {
    const call = embeddingCall(getAdapter('llamacpp'), { model: 'alias', input: ['a'], encoding_format: 'base64', dimensions: 8 }, makeBackend('llamacpp'), 'served');
    if (!call.ok) throw call.error;
    expect(call.call.body).toEqual({ model: 'served', input: ['a'], encoding_format: 'base64', dimensions: 8 });
    expect(embeddingCall(getAdapter('mlx-lm'), { model: 'm', input: 'a' }, makeBackend('mlx-lm'), 'm').ok).toBe(false);
  });
});

describe('fitEmbeddings', () => {
  const options = { model: 'client', backend: 'b' };

  it('encodes floats as little-endian float32 base64 when base64 was asked, and decodes the reverse', () => {
    const vector = [1, -0.5, 0.25, 3];
    const encoded = encodeFloat32Base64(vector);
    expect(Buffer.from(encoded, 'base64')).toEqual(Buffer.from(new Float32Array(vector).buffer));
    expect(decodeFloat32Base64(encoded)).toEqual(vector);
    const asBase64 = fitEmbeddings({ data: [{ embedding: vector, index: 0, object: 'embedding' }], model: 'server' }, { ...options, format: 'base64' });
    expect(asBase64).toEqual({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: encoded }], model: 'client' });
    const asFloats = fitEmbeddings({ data: [{ embedding: encoded }], usage: { prompt_tokens: 2 } }, { ...options, format: 'float' });
    expect(asFloats).toEqual({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: vector }], model: 'client', usage: { prompt_tokens: 2, total_tokens: 2 } });
  });

  it('refuses an answer that is not a list of vectors, or a base64 vector that is not float32, as the backend failing', () => {
    expect(fitEmbeddings({ error: 'x' }, { ...options, format: 'float' })).toBeInstanceOf(SvirError);
    const odd = fitEmbeddings({ data: [{ embedding: Buffer.from([1, 2, 3]).toString('base64') }] }, { ...options, format: 'float' });
    expect(odd).toMatchObject({ code: 'upstream_error', backend: 'b' });
  });
});
