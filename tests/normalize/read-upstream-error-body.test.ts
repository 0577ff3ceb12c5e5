import { describe, expect, it } from 'vitest';
import { readUpstreamErrorBody } from '../../src/normalize/read-upstream-error-body.js';

describe('readUpstreamErrorBody', () => {
  it('reads {"error":{...}} with a string code', () => {
    expect(
      readUpstreamErrorBody(400, '{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}'),
    ).toEqual({
      status: 400,
      message: 'too long',
      messageFromServer: true,
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      numericCode: null,
      param: 'messages',
      nPromptTokens: null,
      nCtx: null,
    });
  });

  it('reads {"error":{...}} with a numeric code, and llama.cpp\'s token counts', () => {
    const info = readUpstreamErrorBody(
      400,
      '{"error":{"code":400,"message":"request (20056 tokens) exceeds","type":"exceed_context_size_error","n_prompt_tokens":20056,"n_ctx":16384}}',
    );
    expect(info.code).toBeNull();
    expect(info.numericCode).toBe(400);
    expect(info.type).toBe('exceed_context_size_error');
    expect(info.nPromptTokens).toBe(20056);
    expect(info.nCtx).toBe(16384);
  });

  it('reads {"error": string} (mlx-lm, LM Studio)', () => {
    const info = readUpstreamErrorBody(404, '{"error": "Only \'text\' content type is supported."}');
    expect(info.message).toBe("Only 'text' content type is supported.");
    expect(info.messageFromServer).toBe(true);
    expect(info.type).toBeNull();
    expect(info.code).toBeNull();
  });

  it('reads {"detail": string} (mlx-vlm)', () => {
    expect(readUpstreamErrorBody(400, '{"detail":"Protected conversation exceeds the available context budget."}').message).toBe(
      'Protected conversation exceeds the available context budget.',
    );
  });

  it('reads {"detail":[{"msg":...}]}: the first msg, and its location as the param', () => {
    const info = readUpstreamErrorBody(
      422,
      '{"detail":[{"type":"list_type","loc":["body","messages"],"msg":"Input should be a valid list","input":"hi"},{"msg":"second"}]}',
    );
    expect(info.message).toBe('Input should be a valid list');
    expect(info.param).toBe('messages');
  });

  it('reads LM Studio\'s {"error":{"message":...},"message":...}', () => {
    const info = readUpstreamErrorBody(200, '{"error":{"message":"inner"},"message":"outer"}');
    expect(info.message).toBe('inner');
  });

  it('reads a top-level {"object":"error","message":...} (older vLLM)', () => {
    const info = readUpstreamErrorBody(400, '{"object":"error","message":"bad","type":"BadRequestError","param":"max_tokens","code":400}');
    expect(info).toMatchObject({ message: 'bad', type: 'BadRequestError', param: 'max_tokens', numericCode: 400, code: null });
  });

  it('takes Azure\'s null type as null and keeps the string code', () => {
    const info = readUpstreamErrorBody(400, '{"error":{"message":"filtered","type":null,"param":"prompt","code":"content_filter","status":400}}');
    expect(info).toMatchObject({ type: null, code: 'content_filter', param: 'prompt' });
  });

  it.each([
    ['empty', ''],
    ['whitespace', ' \n '],
    ['HTML', '<html><body>Bad Gateway</body></html>'],
    ['text', 'upstream connect error or disconnect/reset before headers'],
    ['a JSON string', '"oops"'],
    ['a JSON array', '[1,2]'],
    ['null', 'null'],
    ['an object with nothing readable', '{"foo":1,"error":{"message":""},"detail":[]}'],
  ])('falls back to the status text for %s', (_name, body) => {
    const info = readUpstreamErrorBody(502, body);
    expect(info.message).toBe('HTTP 502 Bad Gateway');
    expect(info.messageFromServer).toBe(false);
    expect(info.message).not.toContain('<');
  });

  it('gives a stream error without a message a text of its own', () => {
    expect(readUpstreamErrorBody(200, '{}').message).toBe('the stream reported an error without a message');
    expect(readUpstreamErrorBody(599, '').message).toBe('HTTP 599');
  });

  it('ignores fields of the wrong type without losing the others', () => {
    const info = readUpstreamErrorBody(400, '{"error":{"message":"kept","code":{"nested":true},"param":5,"n_ctx":"many"}}');
    expect(info).toMatchObject({ message: 'kept', code: null, numericCode: null, param: null, nCtx: null });
  });
});
