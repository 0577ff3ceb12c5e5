import { describe, expect, it } from 'vitest';
import { displayUrl } from '../../src/monitor/display-url.js';

describe('displayUrl', () => {
  it.each([
    ['http://127.0.0.1:1234/v1/', 'http://127.0.0.1:1234/v1/'],
    ['https://user:secret-pass@llm.example.test/v1/', 'https://llm.example.test/v1/'],
    ['https://llm.example.test/openai/v1/?api-version=2025-01-01&key=sk-in-query#frag', 'https://llm.example.test/openai/v1/'],
    ['http://[::1]:8080/v1/', 'http://[::1]:8080/v1/'],
  ])('%s shows as %s', (input, shown) => {
    expect(displayUrl(input)).toBe(shown);
  });

  it('shows no part of a string that is not a URL', () => {
    expect(displayUrl('sk-not-a-url')).toBe('(not a URL)');
  });
});
