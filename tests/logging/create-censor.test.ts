import { describe, expect, it } from 'vitest';
import { createCensor } from '../../src/logging/create-censor.js';

describe('createCensor', () => {
  it('replaces every key, raw or as it reads inside a JSON string, longest first', () => {
    const censor = createCensor(['abcd-key', 'abcd-key-longer', 'with"quote', 'abc']);
    expect(censor('x abcd-key-longer y abcd-key z')).toBe('x [redacted] y [redacted] z');
    expect(censor(JSON.stringify({ m: 'with"quote' }))).toBe('{"m":"[redacted]"}');
    // Too short to censor by value (it would wreck every line); still redacted by path.
    expect(censor('abc')).toBe('abc');
  });
});
