/**
 * A failure as the Messages API says it (docs/messages.md, "Errors"): the HTTP status, the
 * error's type and message, and the headers. Built from svir's one error shape (toErrorResponse),
 * never beside it: only the vocabulary differs. A full queue or an unreachable backend is 529
 * `overloaded_error` with `retry-after` (Claude Code backs off and retries it); a context
 * overflow says `prompt is too long: N tokens > M maximum` when both are known, the words
 * Claude Code reads to report (and compact) a too-long prompt.
 */
import { toErrorResponse, toSvirError, type ErrorCode } from '../errors.js';

export interface MessagesFailure {
  status: number;
  type: string;
  message: string;
  headers: Record<string, string>;
}

export interface MessagesErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id: string;
}

/** Anthropic's error type and status for each of svir's codes (status kept unless said). */
const TYPES: Record<ErrorCode, { type: string; status?: number }> = {
  invalid_json: { type: 'invalid_request_error' },
  invalid_request: { type: 'invalid_request_error' },
  context_length_exceeded: { type: 'invalid_request_error' },
  unsupported_content: { type: 'invalid_request_error' },
  content_filter: { type: 'invalid_request_error' },
  invalid_api_key: { type: 'authentication_error' },
  model_not_found: { type: 'not_found_error' },
  not_found: { type: 'not_found_error' },
  response_not_found: { type: 'not_found_error' },
  item_not_found: { type: 'not_found_error' },
  method_not_allowed: { type: 'invalid_request_error' },
  request_too_large: { type: 'request_too_large' },
  unsupported_media_type: { type: 'invalid_request_error' },
  rate_limit_exceeded: { type: 'rate_limit_error' },
  internal_error: { type: 'api_error' },
  upstream_auth_failed: { type: 'api_error' },
  upstream_error: { type: 'api_error' },
  backend_unavailable: { type: 'overloaded_error', status: 529 },
  store_unavailable: { type: 'api_error' },
  upstream_timeout: { type: 'timeout_error' },
};

/** Seconds Claude Code waits at least before it asks a busy backend again, when svir knows no better. */
const OVERLOADED_RETRY_AFTER = '1';

export function toMessagesFailure(err: unknown): MessagesFailure {
  const svirError = toSvirError(err);
  const response = toErrorResponse(svirError);
  const mapped = TYPES[svirError.code];
  const headers = response.headers;
  let message = response.body.error.message;
  if (svirError.code === 'context_length_exceeded') {
    const overflow = svirError.overflow;
    // Claude Code reads these exact words and numbers; unknown numbers keep the words first.
    message =
      overflow?.promptTokens != null && overflow.contextTokens != null
        ? `prompt is too long: ${overflow.promptTokens} tokens > ${overflow.contextTokens} maximum`
        : `prompt is too long: ${message}`;
  }
  const status = mapped.status ?? response.status;
  if (status === 529 && headers['retry-after'] === undefined) headers['retry-after'] = OVERLOADED_RETRY_AFTER;
  return { status, type: mapped.type, message, headers };
}

export function messagesErrorBody(failure: MessagesFailure, requestId: string): MessagesErrorBody {
  return { type: 'error', error: { type: failure.type, message: failure.message }, request_id: requestId };
}

/** After the first event: the one `event: error` (the open block was closed just before). */
export function encodeMessagesError(failure: MessagesFailure, requestId: string): string {
  return `event: error\ndata: ${JSON.stringify(messagesErrorBody(failure, requestId))}\n\n`;
}
