/**
 * Every upstream error form docs/wire-protocol.md records (#request-body,
 * #errors-inside-the-stream, #http-errors), with the status and body svir answers. Shared by the
 * table test over mapUpstreamError, the adapter pass and the end-to-end tests, so all three hold
 * svir to the same answers.
 */
import type { BackendType } from '../../src/config/schema.js';

export interface UpstreamErrorForm {
  name: string;
  /** Which server type sent it: the adapter pass runs the form through that adapter. */
  server: BackendType | 'any';
  channel: 'http' | 'stream';
  /** HTTP status; 200 for an error inside a stream. */
  status: number;
  body: string;
  /** For a stream: an `event: error` (LM Studio) rather than an error chunk in `data:`. */
  sseEvent?: 'error';
  retryAfter?: string;
  expected: {
    status: number;
    code: string;
    param: string | null;
    /** The exact message, with the backend name `b` the tests use. */
    message: string;
    retryAfter?: string;
    retryable?: boolean;
  };
}

const B = 'backend "b"';

export const UPSTREAM_ERROR_FORMS: readonly UpstreamErrorForm[] = [
  // docs/wire-protocol.md#messages: content parts a server will never take.
  {
    name: "mlx-lm 404 for an image part ({\"error\": string})",
    server: 'mlx-lm',
    channel: 'http',
    status: 404,
    body: '{"error": "Only \'text\' content type is supported."}',
    expected: { status: 400, code: 'unsupported_content', param: 'messages', message: `${B}: Only 'text' content type is supported.`, retryable: false },
  },
  {
    name: 'llama.cpp 500 for an image without a projector',
    server: 'llamacpp',
    channel: 'http',
    status: 500,
    body: '{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}',
    expected: {
      status: 400,
      code: 'unsupported_content',
      param: 'messages',
      message: `${B}: image input is not supported - hint: if this is unexpected, you may need to provide the mmproj`,
      retryable: false,
    },
  },
  // docs/wire-protocol.md#tools: tool_choice rejections.
  {
    name: 'LM Studio 400 named tool_choice ({"error": string})',
    server: 'lmstudio',
    channel: 'http',
    status: 400,
    body: '{"error":"Invalid tool_choice type: \'object\'. Supported string values: none, auto, required"}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: null,
      message: `${B} rejected the request: Invalid tool_choice type: 'object'. Supported string values: none, auto, required`,
    },
  },
  {
    name: 'mlx-vlm 400 tool_choice outside the protocol ({"detail": string})',
    server: 'mlx-vlm',
    channel: 'http',
    status: 400,
    body: '{"detail":"Invalid tool_choice. Expected \'none\', \'auto\', \'required\', or a specific function."}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: null,
      message: `${B} rejected the request: Invalid tool_choice. Expected 'none', 'auto', 'required', or a specific function.`,
    },
  },
  {
    name: 'llama.cpp 400 tool_choice outside the protocol (numeric code)',
    server: 'llamacpp',
    channel: 'http',
    status: 400,
    body: '{"error":{"code":400,"message":"Invalid tool_choice: bogus","type":"invalid_request_error"}}',
    expected: { status: 400, code: 'invalid_request', param: null, message: `${B} rejected the request: Invalid tool_choice: bogus` },
  },
  {
    name: 'vLLM 400 auto tool choice without a parser',
    server: 'vllm',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: null,
      message: `${B} rejected the request: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`,
    },
  },
  {
    name: 'vLLM 400 named tool choice without a parser',
    server: 'vllm',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"tool_choice=function \\"open_locker\\" requires --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: null,
      message: `${B} rejected the request: tool_choice=function "open_locker" requires --tool-call-parser to be set`,
    },
  },
  // docs/wire-protocol.md#optional-fields: an effort the template rejects.
  {
    name: 'vLLM 400 reasoning effort the template does not name',
    server: 'vllm',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"Unexpected reasoning effort high. Supported types are xhigh (default), medium, and low.","type":"BadRequestError","param":null,"code":400}}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: null,
      message: `${B} rejected the request: Unexpected reasoning effort high. Supported types are xhigh (default), medium, and low.`,
    },
  },
  // docs/wire-protocol.md#structured-output: LM Studio's json_object rejection.
  {
    name: 'LM Studio 400 json_object ({"error": string})',
    server: 'lmstudio',
    channel: 'http',
    status: 400,
    body: '{"error":"\'response_format.type\' must be \'json_schema\' or \'text\'"}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: null,
      message: `${B} rejected the request: 'response_format.type' must be 'json_schema' or 'text'`,
    },
  },
  // docs/wire-protocol.md#http-errors: HTTP errors by status.
  {
    name: '401 with no body',
    server: 'any',
    channel: 'http',
    status: 401,
    body: '',
    expected: {
      status: 502,
      code: 'upstream_auth_failed',
      param: null,
      message: `${B} refused svir's credentials (HTTP 401); check the backend's apiKey.`,
      retryable: true,
    },
  },
  {
    name: '401 whose message quotes the key',
    server: 'openai',
    channel: 'http',
    status: 401,
    body: '{"error":{"message":"Incorrect API key provided: sk-upstream-secret-1234. You can find your API key at ...","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}',
    expected: {
      status: 502,
      code: 'upstream_auth_failed',
      param: null,
      message: `${B} refused svir's credentials (HTTP 401); check the backend's apiKey.`,
    },
  },
  {
    name: '403 HTML page',
    server: 'any',
    channel: 'http',
    status: 403,
    body: '<html><body><h1>403 Forbidden</h1></body></html>',
    expected: {
      status: 502,
      code: 'upstream_auth_failed',
      param: null,
      message: `${B} refused svir's credentials (HTTP 403); check the backend's apiKey.`,
    },
  },
  {
    name: '429 with Retry-After',
    server: 'any',
    channel: 'http',
    status: 429,
    body: '{"error":{"message":"Too many requests","type":"rate_limit_error","code":"rate_limit_exceeded"}}',
    retryAfter: '7',
    expected: {
      status: 429,
      code: 'rate_limit_exceeded',
      param: null,
      message: `${B} is rate limiting requests: Too many requests`,
      retryAfter: '7',
      retryable: true,
    },
  },
  {
    name: '429 without a body',
    server: 'any',
    channel: 'http',
    status: 429,
    body: '',
    expected: { status: 429, code: 'rate_limit_exceeded', param: null, message: `${B} is rate limiting requests: HTTP 429 Too Many Requests` },
  },
  {
    name: '408 with no body',
    server: 'any',
    channel: 'http',
    status: 408,
    body: '',
    expected: { status: 504, code: 'upstream_timeout', param: null, message: `${B} timed out: HTTP 408 Request Timeout` },
  },
  {
    name: '504 HTML from a gateway',
    server: 'any',
    channel: 'http',
    status: 504,
    body: '<html><head><title>504 Gateway Time-out</title></head><body>nginx</body></html>',
    expected: { status: 504, code: 'upstream_timeout', param: null, message: `${B} timed out: HTTP 504 Gateway Timeout` },
  },
  {
    name: '500 not JSON',
    server: 'any',
    channel: 'http',
    status: 500,
    body: 'Internal Server Error: Traceback (most recent call last) ...',
    expected: { status: 502, code: 'upstream_error', param: null, message: `${B} failed: HTTP 500 Internal Server Error`, retryable: true },
  },
  {
    name: '502 with no body',
    server: 'any',
    channel: 'http',
    status: 502,
    body: '',
    expected: { status: 502, code: 'upstream_error', param: null, message: `${B} failed: HTTP 502 Bad Gateway` },
  },
  {
    name: '503 with {"error":{...}}',
    server: 'any',
    channel: 'http',
    status: 503,
    body: '{"error":{"message":"model is loading","type":"server_error","code":503}}',
    expected: { status: 502, code: 'upstream_error', param: null, message: `${B} failed: model is loading` },
  },
  {
    name: '413 with a string code',
    server: 'any',
    channel: 'http',
    status: 413,
    body: '{"error":{"message":"payload too large","type":"invalid_request_error","code":"payload_too_large"}}',
    expected: { status: 400, code: 'invalid_request', param: null, message: `${B} rejected the request: payload too large` },
  },
  {
    name: 'mlx-vlm 422 validation list ({"detail":[{"msg":...}]})',
    server: 'mlx-vlm',
    channel: 'http',
    status: 422,
    body: '{"detail":[{"type":"list_type","loc":["body","messages"],"msg":"Input should be a valid list","input":"hi"}]}',
    expected: { status: 400, code: 'invalid_request', param: 'messages', message: `${B} rejected the request: Input should be a valid list` },
  },
  {
    name: '400 with an empty body',
    server: 'any',
    channel: 'http',
    status: 400,
    body: '',
    expected: { status: 400, code: 'invalid_request', param: null, message: `${B} rejected the request: HTTP 400 Bad Request` },
  },
  {
    name: '400 JSON of no known shape',
    server: 'any',
    channel: 'http',
    status: 400,
    body: '["unexpected"]',
    expected: { status: 400, code: 'invalid_request', param: null, message: `${B} rejected the request: HTTP 400 Bad Request` },
  },
  {
    name: 'mlx-lm 404 for another failure before generation',
    server: 'mlx-lm',
    channel: 'http',
    status: 404,
    body: '{"error": "Model failed to load"}',
    expected: { status: 502, code: 'upstream_error', param: null, message: `${B} failed: Model failed to load` },
  },
  // docs/wire-protocol.md#http-errors: context overflow, every server's form.
  {
    name: 'OpenAI schema 400 context_length_exceeded',
    server: 'openai',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.`,
    },
  },
  {
    name: 'OpenAI schema 413 context_window_exceeded without the words',
    server: 'any',
    channel: 'http',
    status: 413,
    body: '{"error":{"message":"Input is too long for the context window.","type":"invalid_request_error","code":"context_window_exceeded"}}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: The prompt exceeds this model's maximum context length (context length exceeded; the server gave no token counts). The server said: Input is too long for the context window.`,
    },
  },
  {
    name: 'OpenAI schema 422 context_length_exceeded',
    server: 'any',
    channel: 'http',
    status: 422,
    body: '{"error":{"message":"prompt too long","code":"context_length_exceeded"}}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: The prompt exceeds this model's maximum context length (context length exceeded; the server gave no token counts). The server said: prompt too long`,
    },
  },
  {
    name: 'llama.cpp 400 exceed_context_size_error with n_prompt_tokens and n_ctx',
    server: 'llamacpp',
    channel: 'http',
    status: 400,
    body: '{"error":{"code":400,"message":"request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":20056,"n_ctx":16384}}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: This model's maximum context length is 16384 tokens, but the prompt has 20056 tokens. The server said: request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it`,
      retryable: false,
    },
  },
  {
    name: 'mlx-vlm 400 "Protected conversation exceeds the available context budget."',
    server: 'mlx-vlm',
    channel: 'http',
    status: 400,
    body: '{"detail":"Protected conversation exceeds the available context budget."}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: The prompt exceeds this model's maximum context length (context length exceeded; the server gave no token counts). The server said: Protected conversation exceeds the available context budget.`,
    },
  },
  {
    name: 'mlx-vlm 400 "Output reservation leaves no room for compacted context."',
    server: 'mlx-vlm',
    channel: 'http',
    status: 400,
    body: '{"detail":"Output reservation leaves no room for compacted context."}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: The prompt exceeds this model's maximum context length (context length exceeded; the server gave no token counts). The server said: Output reservation leaves no room for compacted context.`,
    },
  },
  {
    name: 'vLLM 400 param input_tokens',
    server: 'vllm',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"This model\'s maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens, for a total of at least 262145 tokens. Please reduce the length of the input prompt or the number of requested output tokens.","type":"BadRequestError","param":"input_tokens","code":400}}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: This model's maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens, for a total of at least 262145 tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
    },
  },
  {
    name: 'vLLM 400 param max_tokens is a parameter error, not an overflow',
    server: 'vllm',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"max_tokens=300000 cannot be greater than max_model_len=max_total_tokens=262144","type":"BadRequestError","param":"max_tokens","code":400}}',
    expected: {
      status: 400,
      code: 'invalid_request',
      param: 'max_tokens',
      message: `${B} rejected the request: max_tokens=300000 cannot be greater than max_model_len=max_total_tokens=262144`,
    },
  },
  // docs/wire-protocol.md#http-errors: a gateway status for a failure a resend repeats.
  {
    name: 'mlx-vlm 502 compaction summary hit its output limit',
    server: 'mlx-vlm',
    channel: 'http',
    status: 502,
    body: '{"detail":"Compaction summary hit its output limit; original context preserved."}',
    expected: {
      status: 502,
      code: 'upstream_error',
      param: null,
      message: `${B}: Compaction summary hit its output limit; original context preserved.`,
      retryable: false,
    },
  },
  // docs/wire-protocol.md#http-errors: Azure's prompt filter.
  {
    name: 'Azure 400 content_filter with innererror',
    server: 'azure',
    channel: 'http',
    status: 400,
    body: '{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI\'s content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"detected":true,"filtered":true}}}}}',
    expected: {
      status: 400,
      code: 'content_filter',
      param: 'prompt',
      message: `${B}: The response was filtered due to the prompt triggering Azure OpenAI's content management policy.`,
      retryable: false,
    },
  },
  // docs/wire-protocol.md#errors-inside-the-stream: errors inside the stream.
  {
    name: 'llama.cpp error chunk with numeric code 500',
    server: 'llamacpp',
    channel: 'stream',
    status: 200,
    body: '{"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}',
    expected: {
      status: 502,
      code: 'upstream_error',
      param: null,
      message: `${B} failed inside the stream: The model produced output that does not match the expected peg-native format`,
    },
  },
  {
    name: 'vLLM error chunk with only a message',
    server: 'vllm',
    channel: 'stream',
    status: 200,
    body: '{"error": {"message": "EngineCore encountered an issue"}}',
    expected: { status: 502, code: 'upstream_error', param: null, message: `${B} failed inside the stream: EngineCore encountered an issue` },
  },
  {
    name: 'LM Studio event: error, context overflow',
    server: 'lmstudio',
    channel: 'stream',
    status: 200,
    sseEvent: 'error',
    body: '{"error":{"message":"The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input"},"message":"The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input"}',
    expected: {
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
      message: `${B}: The prompt exceeds this model's maximum context length (context length exceeded; the server gave no token counts). The server said: The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input`,
    },
  },
  {
    name: 'LM Studio event: error, another failure',
    server: 'lmstudio',
    channel: 'stream',
    status: 200,
    sseEvent: 'error',
    body: '{"error":{"message":"Model unloaded."},"message":"Model unloaded."}',
    expected: { status: 502, code: 'upstream_error', param: null, message: `${B} failed inside the stream: Model unloaded.` },
  },
  {
    name: 'error event whose data is not JSON',
    server: 'any',
    channel: 'stream',
    status: 200,
    sseEvent: 'error',
    body: 'something broke',
    expected: {
      status: 502,
      code: 'upstream_error',
      param: null,
      message: `${B} failed inside the stream: the stream reported an error without a message`,
    },
  },
];
