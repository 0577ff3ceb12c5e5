/**
 * The Responses API's names for the chat fields an error of the chat pipeline may name
 * (docs/responses.md, "Errors"): OpenAI's own Responses API answers an overflow with
 * `param: "input"`, and a client reads `param` against the request it sent.
 */
import { paramVocabulary } from '../errors.js';

export const responsesParams = paramVocabulary({
  messages: 'input',
  // Azure's content filter names the prompt; vLLM's overflow names its input tokens.
  prompt: 'input',
  input_tokens: 'input',
  max_tokens: 'max_output_tokens',
  max_completion_tokens: 'max_output_tokens',
  response_format: 'text.format',
  verbosity: 'text.verbosity',
  reasoning_effort: 'reasoning.effort',
  // Built-in tools are not sent and namespaces are flattened: the chat list is not numbered as the client's.
  tools: 'tools',
  // svir's own fields of the chat request, which the client did not send.
  stream_options: null,
  chat_template_kwargs: null,
});
