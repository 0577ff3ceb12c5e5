/**
 * The one error catalogue. Every error svir answers, before or inside a stream, is built from
 * an entry here and leaves through `toErrorResponse`, so the HTTP error handler, the 404
 * handler and the stream's error event cannot drift apart.
 */

export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  invalid_request: { status: 400, type: 'invalid_request_error', message: 'The request is invalid.' },
  context_length_exceeded: {
    status: 400,
    type: 'invalid_request_error',
    message: "This model's maximum context length was exceeded by the prompt.",
  },
  unsupported_content: { status: 400, type: 'invalid_request_error', message: 'The backend cannot take this content.' },
  content_filter: { status: 400, type: 'invalid_request_error', message: 'The prompt was blocked by a content filter.' },
  invalid_api_key: { status: 401, type: 'authentication_error', message: 'Missing or invalid API key.' },
  model_not_found: { status: 404, type: 'invalid_request_error', message: 'The model does not exist.' },
  not_found: { status: 404, type: 'invalid_request_error', message: 'No such route.' },
  response_not_found: { status: 404, type: 'invalid_request_error', message: 'No stored response has this id.' },
  item_not_found: { status: 404, type: 'invalid_request_error', message: 'No stored item has this id.' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'Method not allowed on this route.' },
  request_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'The request body must be application/json.',
  },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', message: 'The backend is rate limiting requests.' },
  internal_error: { status: 500, type: 'server_error', message: 'svir failed unexpectedly.' },
  upstream_auth_failed: {
    status: 502,
    type: 'upstream_error',
    message: "The backend refused svir's credentials.",
  },
  upstream_error: { status: 502, type: 'upstream_error', message: 'The backend failed.' },
  backend_unavailable: { status: 503, type: 'service_unavailable', message: 'The backend is unavailable.' },
  store_unavailable: { status: 503, type: 'service_unavailable', message: 'The shared Responses store is unavailable.' },
  upstream_timeout: { status: 504, type: 'timeout_error', message: 'The backend took too long to answer.' },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Where an error came from: svir refused the request itself, or a backend failed. */
export type ErrorSource = 'proxy' | 'upstream';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface SvirErrorOptions {
  message?: string;
  param?: string | null;
  source?: ErrorSource;
  /** Seconds, for 429 and 503. */
  retryAfter?: number | string;
  /** Backend name, for the log line and the message prefix. */
  backend?: string;
  /** Overrides the code's default (see RETRYABLE_BY_DEFAULT). */
  retryable?: boolean;
  /** A context overflow's counts, where known: the Messages route words them as Claude Code reads them. */
  overflow?: { promptTokens: number | null; contextTokens: number | null };
  cause?: unknown;
}

/**
 * Codes that say the backend failed rather than the request: sending the same request again,
 * later or to another backend, may succeed, so failover may try it. Anything else (the request
 * was wrong, or a backend failure that a resend repeats) is final.
 */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'rate_limit_exceeded',
  'upstream_auth_failed',
  'upstream_error',
  'backend_unavailable',
  'upstream_timeout',
]);

/** A failure with a stable code from the catalogue. Pure data: safe to build in pure modules. */
export class SvirError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly source: ErrorSource;
  readonly retryAfter: string | undefined;
  readonly backend: string | undefined;
  /** Whether failover may send the same request again (to this or another backend). */
  readonly retryable: boolean;
  /** A context overflow's counts (`context_length_exceeded`), where the server gave them. */
  readonly overflow: { promptTokens: number | null; contextTokens: number | null } | undefined;

  constructor(code: ErrorCode, options: SvirErrorOptions = {}) {
    const entry = ERROR_CATALOGUE[code];
    super(options.message && options.message.length > 0 ? options.message : entry.message, {
      cause: options.cause,
    });
    this.name = 'SvirError';
    this.code = code;
    this.status = entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
    this.source = options.source ?? 'proxy';
    this.retryAfter = options.retryAfter === undefined ? undefined : String(options.retryAfter);
    this.backend = options.backend;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.overflow = options.overflow;
  }

  toBody(): OpenAIErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export interface ErrorResponse {
  status: number;
  body: OpenAIErrorBody;
  headers: Record<string, string>;
}

/** Fastify's own errors carry a statusCode and an FST_* code; map the ones a client can cause. */
function fromFrameworkError(err: { statusCode?: unknown; code?: unknown; message?: unknown }): SvirError | undefined {
  const code = typeof err.code === 'string' ? err.code : '';
  const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
  const message = typeof err.message === 'string' ? err.message : '';
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) return new SvirError('request_too_large');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) return new SvirError('unsupported_media_type');
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new SvirError('invalid_json', { message: 'The request body is empty.' });
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
    return new SvirError('invalid_json', { message: `The request body is not valid JSON: ${message}` });
  }
  if (status === 404) return new SvirError('not_found');
  if (status === 405) return new SvirError('method_not_allowed');
  if (status >= 400 && status < 500) return new SvirError('invalid_request', { message });
  return undefined;
}

/** Any failure as the SvirError the client gets (Fastify's own errors mapped, anything else internal). */
export function toSvirError(err: unknown): SvirError {
  if (err instanceof SvirError) return err;
  if (err !== null && typeof err === 'object') return fromFrameworkError(err) ?? new SvirError('internal_error', { cause: err });
  return new SvirError('internal_error', { cause: err });
}

/**
 * A route's own name for a field of the chat request it is served over. The chat pipeline
 * (adapters, the backend's answer) names chat fields in `param` (`messages`, `max_tokens`); a
 * route over it (/v1/responses, /v1/messages) answers in its client's vocabulary instead
 * (`input`, `max_output_tokens`). null: the route has no such field to name.
 */
export type ParamVocabulary = (chatParam: string) => string | null;

/** The field a param path starts with: `messages[2].content` → `messages`. */
function headField(param: string): string {
  const end = param.search(/[.[]/);
  return end === -1 ? param : param.slice(0, end);
}

/**
 * A vocabulary from a table keyed by chat field. A path under a field in the table is named by
 * the route's field alone (`messages[2].content` → `input`: the two lists are not numbered
 * alike); a field not in the table is the route's too and is kept as it is.
 */
export function paramVocabulary(table: Readonly<Record<string, string | null>>): ParamVocabulary {
  return (chatParam) => {
    const head = headField(chatParam);
    return Object.hasOwn(table, head) ? (table[head] ?? null) : chatParam;
  };
}

/** The error with its param in the route's vocabulary; anything else as it is. */
export function inVocabulary(err: unknown, vocabulary: ParamVocabulary): unknown {
  if (!(err instanceof SvirError) || err.param === null) return err;
  const param = vocabulary(err.param);
  if (param === err.param) return err;
  return new SvirError(err.code, {
    message: err.message,
    param,
    source: err.source,
    ...(err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter }),
    ...(err.backend === undefined ? {} : { backend: err.backend }),
    retryable: err.retryable,
    cause: err.cause,
  });
}

/**
 * Turns any failure into the one error shape: the only way an error leaves svir. A route
 * served over the chat pipeline passes its vocabulary, so that `param` names its own field.
 */
export function toErrorResponse(err: unknown, vocabulary?: ParamVocabulary): ErrorResponse {
  const svirError = toSvirError(vocabulary === undefined ? err : inVocabulary(err, vocabulary));

  const headers: Record<string, string> = { 'x-svir-error-source': svirError.source };
  if (svirError.retryAfter !== undefined) headers['retry-after'] = svirError.retryAfter;
  if (svirError.code === 'invalid_api_key') headers['www-authenticate'] = 'Bearer';
  return { status: svirError.status, body: svirError.toBody(), headers };
}
