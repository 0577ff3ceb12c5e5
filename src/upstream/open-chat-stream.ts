/**
 * Sends the request upstream (chat, legacy completions, embeddings) and hands back a response
 * that is a running event stream (or, for embeddings, a JSON body), or throws the SvirError the
 * client gets instead. The body always goes with its exact
 * `Content-Length` and never chunked (not every server takes a chunked body,
 * docs/wire-protocol.md#size): as one Buffer, or, for a body of long strings (images), in pieces
 * that pass those strings on without writing the whole body out first (encode-json-body.ts). A
 * rejection the adapter knows how to avoid (an optional field the server refuses) is sent again
 * without it, and that change is recorded for the `x-svir-changes` header. A server may refuse such
 * fields one at a time, so each rejection gets its retry, but each field at most once: the
 * retries end after as many as there are fields the adapter's planners know.
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import type { Adapter, BackendInfo, UpstreamCall } from '../adapters/adapter.js';
import { SvirError } from '../errors.js';
import { dispatchRequest, type UpstreamResponse } from './dispatch-request.js';
import { bodyPieces, encodeJsonBody } from './encode-json-body.js';
import { mapTransportError } from './map-transport-error.js';
import { ERROR_BODY_LIMITS, readBoundedBody } from './read-bounded-body.js';
import type { UpstreamBody } from './upstream-body.js';

export type { UpstreamBody } from './upstream-body.js';

export interface OpenChatStreamArgs {
  dispatcher: Dispatcher;
  adapter: Adapter;
  backend: BackendInfo;
  call: UpstreamCall;
  /** Aborted when the client goes away (or svir shuts down): the upstream request stops at once. */
  signal: AbortSignalLike;
  /** Keys scrubbed from any server message that echoes one. */
  secrets: readonly string[];
  /**
   * What a good answer is: an event stream (chat, legacy completions; the default) or one JSON
   * body (embeddings, which servers do not stream).
   */
  expect?: 'event-stream' | 'json';
  /**
   * The context the backend gives this request's model, where svir knows it
   * (known-context-length.ts: config `contextLength`, else what the server said): an overflow's
   * message says it when the server's error gives no number.
   */
  contextLength?: number;
}

export interface OpenedChatStream {
  body: UpstreamBody;
  /** What svir changed for this backend: the adapter's rewrites plus a retry, if one was made. */
  changes: string[];
  /** Whether the request was sent again after a rejection. */
  retried: boolean;
  /** The body the server took (after retries, the last one sent). */
  sentBody: Record<string, unknown>;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function withStream(body: Record<string, unknown>, args: OpenChatStreamArgs): Record<string, unknown> {
  // The adapters already ask for a stream; this only guards the one rule the loop relies on.
  return args.expect === 'json' || body.stream === true ? body : { ...body, stream: true };
}

/**
 * The adapter's headers (auth), then svir's. Built key by key on a new object: spreading the
 * adapter's headers and adding these after them is V8's slow path on Node 20 (about 1.5 µs a
 * request, architecture.md).
 */
function requestHeaders(args: OpenChatStreamArgs, contentLength: number | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const own = args.call.headers;
  for (const key of Object.keys(own)) {
    const value = own[key];
    if (value !== undefined) headers[key] = value;
  }
  headers['content-type'] = 'application/json';
  headers.accept = args.expect === 'json' ? 'application/json' : 'text/event-stream';
  headers['user-agent'] = 'svir';
  // undici holds a streamed body to this length exactly (a mismatch fails the request).
  if (contentLength !== undefined) headers['content-length'] = String(contentLength);
  return headers;
}

async function send(args: OpenChatStreamArgs, body: Record<string, unknown>): Promise<UpstreamResponse> {
  const encoded = encodeJsonBody(body);
  const whole = encoded.parts.length === 1 ? encoded.parts[0] : undefined;
  try {
    return await dispatchRequest(args.dispatcher, {
      url: args.call.url,
      method: 'POST',
      headers: requestHeaders(args, whole === undefined ? encoded.byteLength : undefined),
      body: whole === undefined ? Readable.from(bodyPieces(encoded), { objectMode: false }) : Buffer.from(whole, 'utf8'),
      signal: args.signal,
    });
  } catch (err) {
    if (args.signal.aborted) throw args.signal.reason;
    throw mapTransportError(err, args.backend.config.name, 'request');
  }
}

export async function openChatStream(args: OpenChatStreamArgs): Promise<OpenedChatStream> {
  const name = args.backend.config.name;
  const changes = [...args.call.changes];
  let body = withStream(args.call.body, args);
  let retried = false;
  /** Fields a retry already dropped or changed: none is retried twice (made at the first retry). */
  let touched: Set<string> | undefined;

  for (;;) {
    const response = await send(args, body);
    const status = response.statusCode;

    if (status < 200 || status > 299) {
      // 401/403: the status says it all, and the server's words are never shown (they may quote
      // the key), so a body the server may stall (docs/wire-protocol.md#http-errors) is dropped
      // unread.
      const auth = status === 401 || status === 403;
      if (auth) response.body.discard();
      const text = auth ? '' : await readBoundedBody(response.body, ERROR_BODY_LIMITS);
      if (args.signal.aborted) throw args.signal.reason;
      const retryAfter = headerValue(response.header('retry-after'));
      const contextLength = args.contextLength;
      const error = args.adapter.readError(status, text, {
        backend: name,
        secrets: args.secrets,
        ...(retryAfter === undefined ? {} : { retryAfter }),
        ...(contextLength === undefined ? {} : { contextLength }),
      });
      const plan = args.adapter.planRetry(status, text, body);
      if (plan === null || plan.fields.length === 0 || plan.fields.some((field) => touched?.has(field) === true)) throw error;
      touched ??= new Set();
      for (const field of plan.fields) touched.add(field);
      retried = true;
      changes.push(plan.change);
      body = withStream(plan.body, args);
      continue;
    }

    const contentType = headerValue(response.header('content-type')) ?? '';
    const json = args.expect === 'json';
    if (!(json ? /^\s*application\/([\w.+-]*\+)?json\b/i : /^\s*text\/event-stream\b/i).test(contentType)) {
      response.body.discard();
      const what = contentType === '' ? 'no content type' : `content type "${contentType.slice(0, 100)}"`;
      throw new SvirError('upstream_error', {
        source: 'upstream',
        backend: name,
        message: `backend "${name}" answered HTTP ${status} with ${what}, not ${json ? 'JSON' : 'an event stream'}.`,
      });
    }
    return { body: response.body, changes, retried, sentBody: body };
  }
}
