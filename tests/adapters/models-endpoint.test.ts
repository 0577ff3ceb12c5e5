/**
 * Where each backend type lists its models and with which credentials (the adapter's
 * `modelsEndpoint`): svir's discovery, context probes and tokenizer requests go with these, and
 * only ever with the backend's configured key.
 */
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { makeBackend } from './make-backend.js';

describe('modelsEndpoint', () => {
  const bearerTypes = BACKEND_TYPES.filter((type) => type !== 'azure');

  it.each(bearerTypes)('%s: GET {base}/v1/models with the Bearer key, however the URL was written', (type) => {
    const adapter = getAdapter(type);
    for (const url of ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1/']) {
      expect(adapter.modelsEndpoint(makeBackend(type, { url, apiKey: 'k-1' }))).toEqual({
        url: 'http://127.0.0.1:8080/v1/models',
        headers: { authorization: 'Bearer k-1' },
      });
    }
    expect(adapter.modelsEndpoint(makeBackend(type, { url: 'http://127.0.0.1:8080/proxy/v1' }))).toEqual({
      url: 'http://127.0.0.1:8080/proxy/v1/models',
      headers: {},
    });
  });

  it("azure: the resource's list with api-key, whichever chat route apiVersion picks", () => {
    const azure = getAdapter('azure');
    const expected = { url: 'https://res.openai.azure.com/openai/v1/models', headers: { 'api-key': 'az' } };
    expect(azure.modelsEndpoint(makeBackend('azure', { url: 'https://res.openai.azure.com/', apiKey: 'az' }))).toEqual(expected);
    expect(azure.modelsEndpoint(makeBackend('azure', { url: 'https://res.openai.azure.com/openai/v1', apiKey: 'az', apiVersion: '2024-10-21' }))).toEqual(expected);
    expect(azure.modelsEndpoint(makeBackend('azure', { url: 'https://res.openai.azure.com' }))).toEqual({ url: expected.url, headers: {} });
  });
});
