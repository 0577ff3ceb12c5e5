import { describe, expect, it } from 'vitest';
import { routeLabelOf } from '../../src/routes/route-label.js';

describe('routeLabelOf', () => {
  it.each([
    ['/v1/chat/completions', 'chat'],
    ['/v1/completions', 'completions'],
    ['/v1/embeddings', 'embeddings'],
    ['/v1/responses', 'responses'],
    ['/v1/messages', 'messages'],
    ['/v1/messages?beta=true', 'messages'],
    ['/v1/chat/completions?x=/y', 'chat'],
    ['/other/route', 'other'],
    ['/v1/', 'unknown'],
    ['/', 'unknown'],
  ])('%s is %s', (url, label) => {
    expect(routeLabelOf(url)).toBe(label);
  });
});
