/**
 * Any upstream failure (a non-2xx answer, an error chunk, LM Studio's `event: error`) → one
 * SvirError in the shape of docs/contract.md#errors. Classifies by what the body says, never by
 * backend type, so adapters can call it as it is. The message always names the backend, keeps the
 * server's words where they help, and never carries the raw body, a header or a key.
 */
import { SvirError, type ErrorCode } from '../errors.js';
import { contextOverflowMessage, recognizeContextOverflow } from './context-overflow.js';
import { readUpstreamErrorBody, type UpstreamErrorInfo } from './read-upstream-error-body.js';
import { redactSecrets } from './redact-secrets.js';

export interface MapUpstreamErrorInput {
  /** HTTP status; 0 or 200 for an error that arrived inside a stream. */
  status: number;
  /** The raw body text (http) or the error event's data (stream). */
  body: string;
  /** The backend's configured name: prefixed to every message. */
  backend: string;
  channel: 'http' | 'stream';
  /** The upstream's Retry-After header, which the server layer read. */
  retryAfter?: string | number;
  /** Configured keys to scrub from any server message that echoes one. */
  secrets?: readonly string[];
  /**
   * The context the backend gives a request, in tokens, where svir knows it (config
   * `contextLength`, else what the server said of it: known-context-length.ts): an overflow's
   * message says it when the server's error gave no number.
   */
  contextLength?: number;
}

/** Long enough for any real server message; bounds what a misbehaving server can push through. */
const MAX_SERVER_MESSAGE = 1000;

/** llama.cpp answers 500 for an image it will never take (no projector). */
const UNSUPPORTED_CONTENT_WORDINGS: readonly RegExp[] = [
  /image input is not supported/i,
  // mlx-lm's 404 for any non-text part.
  /only 'text' content type is supported/i,
];

/**
 * llama.cpp's 500 when the model's chat template raises on the conversation (Mistral-family
 * templates refuse two user messages in a row, as Codex CLI sends them; docs/llamacpp-real.md):
 * the request's shape, not the server, and a resend fails the same way.
 */
const TEMPLATE_REFUSAL_WORDINGS: readonly RegExp[] = [/Jinja Exception/i];

/** mlx-vlm's 502 for a summary that ran out of output: a resend fails the same way. */
const NOT_RETRYABLE_WORDINGS: readonly RegExp[] = [/compaction summary hit its output limit/i];

function cleanServerMessage(message: string, secrets: readonly string[]): string {
  // Control characters could forge log lines; collapse whitespace for a one-line message.
  const oneLine = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const bounded = oneLine.length > MAX_SERVER_MESSAGE ? `${oneLine.slice(0, MAX_SERVER_MESSAGE)}...` : oneLine;
  return redactSecrets(bounded, secrets);
}

/**
 * The status the classification uses: the HTTP status, or inside a stream (no real status) the
 * numeric code the error chunk carried, as llama.cpp's and vLLM's do.
 */
function effectiveStatus(input: MapUpstreamErrorInput, info: UpstreamErrorInfo): number {
  const inStream = input.status === 0 || input.status === 200;
  if (inStream && info.numericCode !== null && info.numericCode >= 400 && info.numericCode <= 599) {
    return info.numericCode;
  }
  return input.status;
}

function classifyStatus(status: number): ErrorCode {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 401 || status === 403) return 'upstream_auth_failed';
  if (status === 408 || status === 504) return 'upstream_timeout';
  if (status === 400 || status === 413 || status === 422) return 'invalid_request';
  // Other 5xx, other 4xx the API does not use (mlx-lm's 404 for any failure), and errors inside
  // a stream that say nothing more: the backend failed.
  return 'upstream_error';
}

export function mapUpstreamError(input: MapUpstreamErrorInput): SvirError {
  const info = readUpstreamErrorBody(input.status, input.body);
  const secrets = input.secrets ?? [];
  const prefix = `backend "${input.backend}"`;
  const serverMessage = info.messageFromServer ? cleanServerMessage(info.message, secrets) : null;
  const said = serverMessage ?? info.message;
  const base = { source: 'upstream' as const, backend: input.backend };
  const status = effectiveStatus(input, info);

  // A key the server refused is svir's configuration problem, never the client's: no server
  // words (they may quote the key), and never a 401 to the client.
  if (status === 401 || status === 403) {
    return new SvirError('upstream_auth_failed', {
      ...base,
      message: `${prefix} refused svir's credentials (HTTP ${status}); check the backend's apiKey.`,
    });
  }
  if (status === 429) {
    return new SvirError('rate_limit_exceeded', {
      ...base,
      message: `${prefix} is rate limiting requests: ${said}`,
      ...(input.retryAfter === undefined ? {} : { retryAfter: input.retryAfter }),
    });
  }

  const overflow = recognizeContextOverflow(info);
  if (overflow !== null) {
    // Clients start compaction on OpenAI's words with a number: the backend's known context when the server gave none.
    const contextTokens = overflow.contextTokens ?? input.contextLength ?? null;
    return new SvirError('context_length_exceeded', {
      ...base,
      param: 'messages',
      overflow: { promptTokens: overflow.promptTokens, contextTokens },
      message: `${prefix}: ${contextOverflowMessage({ promptTokens: overflow.promptTokens, contextTokens }, serverMessage)}`,
    });
  }

  if (info.code === 'content_filter') {
    return new SvirError('content_filter', {
      ...base,
      param: info.param ?? 'prompt',
      message: `${prefix}: ${said}`,
    });
  }

  if (serverMessage !== null && UNSUPPORTED_CONTENT_WORDINGS.some((wording) => wording.test(serverMessage))) {
    return new SvirError('unsupported_content', { ...base, param: 'messages', message: `${prefix}: ${said}` });
  }

  if (serverMessage !== null && TEMPLATE_REFUSAL_WORDINGS.some((wording) => wording.test(serverMessage))) {
    return new SvirError('invalid_request', {
      ...base,
      param: 'messages',
      message: `${prefix}: the model's chat template refused the conversation: ${said}`,
    });
  }

  if (serverMessage !== null && NOT_RETRYABLE_WORDINGS.some((wording) => wording.test(serverMessage))) {
    return new SvirError('upstream_error', { ...base, retryable: false, message: `${prefix}: ${said}` });
  }

  const code = classifyStatus(status);
  if (code === 'invalid_request') {
    return new SvirError('invalid_request', { ...base, param: info.param, message: `${prefix} rejected the request: ${said}` });
  }
  if (code === 'upstream_timeout') {
    return new SvirError('upstream_timeout', { ...base, message: `${prefix} timed out: ${said}` });
  }
  const where = input.channel === 'stream' ? 'failed inside the stream' : 'failed';
  return new SvirError('upstream_error', {
    ...base,
    message: `${prefix} ${where}: ${said}`,
    ...(input.retryAfter === undefined ? {} : { retryAfter: input.retryAfter }),
  });
}
