/** createUrlMemo: a URL's origin and path (with the query), parsed again only when it changes. */
import { describe, expect, it } from 'vitest';
import { createUrlMemo } from '../../src/upstream/create-url-memo.js';

describe('createUrlMemo', () => {
  it('gives the origin and the path with its query, as new URL parses them', () => {
    const parts = createUrlMemo();
    expect(parts('http://127.0.0.1:8080/v1/chat/completions?api-version=2024-10-21')).toEqual({
      origin: 'http://127.0.0.1:8080',
      path: '/v1/chat/completions?api-version=2024-10-21',
    });
    expect(parts('https://example.test/openai/deployments/d%20x/chat/completions')).toEqual({
      origin: 'https://example.test',
      path: '/openai/deployments/d%20x/chat/completions',
    });
    expect(parts('http://[::1]:1234')).toEqual({ origin: 'http://[::1]:1234', path: '/' });
  });

  it('answers the same URL again from its one entry, and another URL afresh', () => {
    const parts = createUrlMemo();
    const chat = parts('http://h:1/v1/chat/completions');
    expect(parts('http://h:1/v1/chat/completions')).toBe(chat);
    const models = parts('http://h:1/v1/models');
    expect(models).toEqual({ origin: 'http://h:1', path: '/v1/models' });
    expect(parts('http://h:1/v1/chat/completions')).toEqual(chat);
  });

  it('refuses an invalid URL as new URL does, and keeps its last entry', () => {
    const parts = createUrlMemo();
    const chat = parts('http://h:1/v1/chat/completions');
    expect(() => parts('not a url')).toThrow(TypeError);
    expect(parts('http://h:1/v1/chat/completions')).toBe(chat);
  });
});
