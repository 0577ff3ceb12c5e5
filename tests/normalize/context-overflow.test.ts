import { describe, expect, it } from 'vitest';
import { contextOverflowMessage, recognizeContextOverflow } from '../../src/normalize/context-overflow.js';
import { readUpstreamErrorBody } from '../../src/normalize/read-upstream-error-body.js';

function recognise(status: number, body: string) {
  return recognizeContextOverflow(readUpstreamErrorBody(status, body));
}

describe('recognizeContextOverflow', () => {
  it('recognises each signal the reference lists', () => {
    expect(recognise(400, '{"error":{"message":"x","code":"context_length_exceeded"}}')).not.toBeNull();
    expect(recognise(400, '{"error":{"message":"x","code":"context_window_exceeded"}}')).not.toBeNull();
    expect(recognise(400, '{"error":{"message":"x","type":"exceed_context_size_error","code":400}}')).not.toBeNull();
    expect(recognise(400, '{"error":{"message":"x","param":"input_tokens","code":400}}')).not.toBeNull();
    expect(recognise(200, '{"error":{"message":"...greater than the context length..."}}')).not.toBeNull();
    expect(recognise(400, '{"detail":"Protected conversation exceeds the available context budget."}')).not.toBeNull();
    expect(recognise(400, '{"detail":"Output reservation leaves no room for compacted context."}')).not.toBeNull();
    expect(recognise(400, '{"error":"This model\'s maximum context length is 10 tokens."}')).toEqual({ promptTokens: null, contextTokens: 10 });
  });

  it('does not take a rejected max_tokens for an overflow, even in overflow words', () => {
    expect(recognise(400, '{"error":{"message":"max_tokens=300000 cannot be greater than max_model_len=max_total_tokens=262144","param":"max_tokens","code":400}}')).toBeNull();
    expect(recognise(400, '{"error":{"message":"This model\'s maximum context length is 10 tokens. However, you requested 20 output tokens","param":"max_tokens"}}')).toBeNull();
  });

  it('does not recognise other errors, nor svir\'s own status text', () => {
    expect(recognise(400, '{"error":"Invalid tool_choice: bogus"}')).toBeNull();
    expect(recognise(400, '')).toBeNull();
    expect(recognise(400, '<html>maximum context length</html>')).toBeNull();
  });

  it('prefers the counts the body gave as fields over those in the words', () => {
    expect(
      recognise(400, '{"error":{"message":"request (1 tokens) exceeds the available context size (2 tokens)","type":"exceed_context_size_error","n_prompt_tokens":20056,"n_ctx":16384}}'),
    ).toEqual({ promptTokens: 20056, contextTokens: 16384 });
    expect(
      recognise(400, '{"error":{"message":"This model\'s maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens","param":"input_tokens"}}'),
    ).toEqual({ promptTokens: 262145, contextTokens: 262144 });
  });
});

describe('contextOverflowMessage', () => {
  it('always says "maximum context length"', () => {
    const counts = [
      { promptTokens: 9, contextTokens: 8 },
      { promptTokens: null, contextTokens: 8 },
      { promptTokens: 9, contextTokens: null },
      { promptTokens: null, contextTokens: null },
    ];
    for (const overflow of counts) {
      expect(contextOverflowMessage(overflow, null)).toMatch(/maximum context length/);
      expect(contextOverflowMessage(overflow, 'budget exceeded')).toMatch(/maximum context length.*The server said: budget exceeded$/);
    }
    expect(contextOverflowMessage({ promptTokens: 9, contextTokens: 8 }, null)).toBe(
      "This model's maximum context length is 8 tokens, but the prompt has 9 tokens.",
    );
  });
});
