/**
 * A route's vocabulary for the params of the chat pipeline's errors (errors.ts): the table, the
 * paths under a mapped field, the error rebuilt with only its param changed, and the Responses
 * route's own table (docs/responses.md, "Errors").
 */
import { describe, expect, it } from 'vitest';
import { inVocabulary, paramVocabulary, SvirError, toErrorResponse } from '../../src/errors.js';
import { responsesParams } from '../../src/responses/responses-params.js';

describe('paramVocabulary', () => {
  const vocabulary = paramVocabulary({ messages: 'input', max_tokens: 'max_output_tokens', stream_options: null });

  it.each([
    ['messages', 'input'],
    ['messages[3].content', 'input'],
    ['messages.0', 'input'],
    ['max_tokens', 'max_output_tokens'],
    ['stream_options', null],
    ['stream_options.include_usage', null],
    // Not in the table: the route's field too, kept with its path.
    ['tool_choice', 'tool_choice'],
    ['tools[0].name', 'tools[0].name'],
    // A field only starting like a mapped one is another field.
    ['messages_extra', 'messages_extra'],
    // Object's own keys are not table entries.
    ['constructor', 'constructor'],
    ['toString', 'toString'],
  ])('%s → %s', (param, expected) => {
    expect(vocabulary(param)).toBe(expected);
  });
});

describe('inVocabulary and toErrorResponse with a vocabulary', () => {
  const vocabulary = paramVocabulary({ messages: 'input' });

  it('rebuilds the error with its param renamed and everything else kept', () => {
    const cause = new Error('server said no');
    const err = new SvirError('context_length_exceeded', {
      param: 'messages',
      message: 'backend "b": too long',
      source: 'upstream',
      backend: 'b',
      retryable: true,
      cause,
    });
    const renamed = inVocabulary(err, vocabulary);
    expect(renamed).toBeInstanceOf(SvirError);
    if (!(renamed instanceof SvirError)) return;
    expect(renamed).toMatchObject({ code: 'context_length_exceeded', status: 400, param: 'input', message: 'backend "b": too long', source: 'upstream', backend: 'b', retryable: true });
    expect(renamed.cause).toBe(cause);
    expect(err.param).toBe('messages');
  });

  it('keeps Retry-After', () => {
    const renamed = inVocabulary(new SvirError('rate_limit_exceeded', { param: 'messages', retryAfter: 3 }), vocabulary);
    expect(toErrorResponse(renamed).headers['retry-after']).toBe('3');
  });

  it('hands back the same error when there is nothing to rename, and anything else as it is', () => {
    const noParam = new SvirError('upstream_error');
    expect(inVocabulary(noParam, vocabulary)).toBe(noParam);
    const same = new SvirError('invalid_request', { param: 'tool_choice' });
    expect(inVocabulary(same, vocabulary)).toBe(same);
    const plain = new TypeError('x');
    expect(inVocabulary(plain, vocabulary)).toBe(plain);
  });

  it('toErrorResponse speaks the vocabulary it is given, and chat names without one', () => {
    const err = new SvirError('unsupported_content', { param: 'messages[1].content' });
    expect(toErrorResponse(err).body.error.param).toBe('messages[1].content');
    expect(toErrorResponse(err, vocabulary).body.error.param).toBe('input');
  });
});

describe('the Responses route vocabulary', () => {
  it.each([
    ['messages', 'input'],
    ['messages[2].content', 'input'],
    ['prompt', 'input'],
    ['input_tokens', 'input'],
    ['max_tokens', 'max_output_tokens'],
    ['max_completion_tokens', 'max_output_tokens'],
    ['response_format', 'text.format'],
    ['response_format.json_schema.name', 'text.format'],
    ['verbosity', 'text.verbosity'],
    ['reasoning_effort', 'reasoning.effort'],
    ['tools[3].function.name', 'tools'],
    ['tool_choice', 'tool_choice'],
    ['temperature', 'temperature'],
    ['model', 'model'],
    ['stream_options', null],
  ])('%s → %s', (param, expected) => {
    expect(responsesParams(param)).toBe(expected);
  });
});
