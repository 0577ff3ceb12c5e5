/**
 * How each server says that the prompt does not fit its context (docs/wire-protocol.md
 * section 5): every wording and channel svir must turn into `context_length_exceeded`. mlx-lm
 * has none: it checks no context limit.
 */
import type { ScriptedResponse } from '../../fakes/scripted-upstream.js';
import type { Dialect } from './backend-flavors.js';

const OPENAI_STYLE = {
  error: {
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
};

export function contextOverflowResponse(dialect: Dialect): ScriptedResponse | undefined {
  switch (dialect) {
    case 'lmstudio': {
      // Status 200, before anything is generated, as an `event: error` with only a message.
      const message =
        'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input';
      return { kind: 'sse', pieces: [`event: error\ndata: ${JSON.stringify({ error: { message }, message })}\n\n`] };
    }
    case 'llamacpp':
    case 'llamacpp-think-tags':
      return {
        kind: 'body',
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: 20056,
            n_ctx: 16384,
          },
        },
      };
    case 'vllm':
    case 'vllm-template-opened-think':
      return {
        kind: 'body',
        status: 400,
        body: {
          error: {
            message:
              "This model's maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens, for a total of at least 262145 tokens.",
            type: 'BadRequestError',
            param: 'input_tokens',
            code: 400,
          },
        },
      };
    case 'mlx-vlm':
      return { kind: 'body', status: 400, body: { detail: 'Protected conversation exceeds the available context budget.' } };
    case 'ollama':
      // A model that cannot shift its context (docs/ollama.md); the others are shortened silently.
      return {
        kind: 'body',
        status: 400,
        body: {
          error: {
            message:
              'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    case 'azure':
    case 'openai':
      return { kind: 'body', status: 400, body: OPENAI_STYLE };
    case 'mlx-lm':
      return undefined;
  }
}
