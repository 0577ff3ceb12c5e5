/**
 * `max_tokens` against the backend's context (src/messages/fit-max-tokens.ts) and svir's errors
 * in Anthropic's vocabulary (src/messages/messages-failure.ts), by table.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/requests/chat-request.js';
import { SvirError, type ErrorCode } from '../../src/errors.js';
import { fitMaxTokens } from '../../src/messages/fit-max-tokens.js';
import { toMessagesFailure } from '../../src/messages/messages-failure.js';

const chat = (maxTokens: number, prompt = 'x'.repeat(3000)): ChatRequest => ({ model: 'm', max_tokens: maxTokens, messages: [{ role: 'user', content: prompt }] });

describe('fitMaxTokens', () => {
  it('leaves the request alone when the context is unknown, or the answer fits beside the prompt', () => {
    expect(fitMaxTokens(chat(32000), undefined)).toEqual({ chat: chat(32000), note: undefined });
    expect(fitMaxTokens(chat(500), 8192).note).toBeUndefined();
  });

  it('lowers max_tokens to the context less the prompt\'s estimate, and says so', () => {
    const fitted = fitMaxTokens(chat(32000), 8192);
    // 3000 bytes and the message's role: about 1000 tokens at 3 bytes a token.
    expect(fitted.chat.max_tokens).toBeGreaterThan(7000);
    expect(fitted.chat.max_tokens).toBeLessThan(7200);
    expect(fitted.note).toBe(`max_tokens 32000 lowered to ${String(fitted.chat.max_tokens)} (the backend's context is 8192 tokens, the prompt about ${String(8192 - (fitted.chat.max_tokens ?? 0))})`);
  });

  it('keeps an eighth of the context when the estimate says the prompt fills it', () => {
    expect(fitMaxTokens(chat(32000, 'x'.repeat(40000)), 4096).chat.max_tokens).toBe(512);
  });
});

describe('toMessagesFailure', () => {
  it.each<[ErrorCode, number, string]>([
    ['invalid_request', 400, 'invalid_request_error'],
    ['invalid_json', 400, 'invalid_request_error'],
    ['invalid_api_key', 401, 'authentication_error'],
    ['model_not_found', 404, 'not_found_error'],
    ['not_found', 404, 'not_found_error'],
    ['request_too_large', 413, 'request_too_large'],
    ['rate_limit_exceeded', 429, 'rate_limit_error'],
    ['internal_error', 500, 'api_error'],
    ['upstream_auth_failed', 502, 'api_error'],
    ['upstream_error', 502, 'api_error'],
    ['backend_unavailable', 529, 'overloaded_error'],
    ['upstream_timeout', 504, 'timeout_error'],
  ])('%s is %i %s', (code, status, type) => {
    const failure = toMessagesFailure(new SvirError(code));
    expect(failure).toMatchObject({ status, type });
  });

  it('a full queue or an unreachable backend says when to come back: its Retry-After, else a second', () => {
    expect(toMessagesFailure(new SvirError('backend_unavailable', { retryAfter: 7 })).headers['retry-after']).toBe('7');
    expect(toMessagesFailure(new SvirError('backend_unavailable')).headers['retry-after']).toBe('1');
  });

  it('an overflow in the words Claude Code reads, with the numbers when the server gave both', () => {
    const both = new SvirError('context_length_exceeded', { overflow: { promptTokens: 20056, contextTokens: 16384 }, message: 'backend "b": ...' });
    expect(toMessagesFailure(both).message).toBe('prompt is too long: 20056 tokens > 16384 maximum');
    const none = new SvirError('context_length_exceeded', { overflow: { promptTokens: null, contextTokens: null }, message: "The prompt exceeds this model's maximum context length." });
    expect(toMessagesFailure(none).message).toBe("prompt is too long: The prompt exceeds this model's maximum context length.");
  });
});
