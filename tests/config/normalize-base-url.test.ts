import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl } from '../../src/config/normalize-base-url.js';

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:1234', 'http://127.0.0.1:1234/v1/'],
    ['http://127.0.0.1:1234/', 'http://127.0.0.1:1234/v1/'],
    ['http://127.0.0.1:1234/v1', 'http://127.0.0.1:1234/v1/'],
    ['http://127.0.0.1:1234/v1/', 'http://127.0.0.1:1234/v1/'],
    ['http://127.0.0.1:1234/v1//', 'http://127.0.0.1:1234/v1/'],
    ['http://127.0.0.1:1234/v1/v1', 'http://127.0.0.1:1234/v1/'],
    ['  http://localhost:8080/v1/  ', 'http://localhost:8080/v1/'],
    ['https://example.com/proxy/llm', 'https://example.com/proxy/llm/v1/'],
    ['https://example.com/proxy/llm/v1/', 'https://example.com/proxy/llm/v1/'],
    ['https://res.openai.azure.com/openai/v1/', 'https://res.openai.azure.com/openai/v1/'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeBaseUrl(input)).toBe(expected);
  });

  it('resolves upstream paths without /v1/v1', () => {
    for (const base of ['http://h:1', 'http://h:1/', 'http://h:1/v1', 'http://h:1/v1/']) {
      expect(new URL('models', normalizeBaseUrl(base)).toString()).toBe('http://h:1/v1/models');
      expect(new URL('chat/completions', normalizeBaseUrl(base)).toString()).toBe('http://h:1/v1/chat/completions');
    }
  });

  it('refuses userinfo, a query and a fragment', () => {
    expect(() => normalizeBaseUrl('http://user:pw@h:1/v1')).toThrow(/userinfo/);
    expect(() => normalizeBaseUrl('http://h:1/v1?key=1')).toThrow(/query/);
    expect(() => normalizeBaseUrl('http://h:1/v1?')).toThrow(/query/);
    expect(() => normalizeBaseUrl('http://h:1/v1#x')).toThrow(/fragment/);
    expect(() => normalizeBaseUrl('not a url')).toThrow();
  });
});
