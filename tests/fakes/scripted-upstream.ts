/**
 * A fake OpenAI-compatible server for tests: a real `http.createServer` on 127.0.0.1:0 that
 * answers each route with scripted responses (SSE bytes in scripted pieces, or a status and a
 * body, or a hand-written handler) and records every request it received. General on purpose:
 * per-server fakes (LM Studio, llama.cpp, ...) are built on top of it.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { fakeChatBodySchema, type FakeChatBody } from './fake-model.js';
import { cutAt } from '../helpers/cut-at.js';

/** One step of a scripted SSE body. */
export type Piece =
  /** Bytes to write as one `write()` (a string is written as UTF-8). */
  | string
  | Uint8Array
  /** Wait before the next piece: for a test to act while the stream is open. */
  | { waitFor: Promise<unknown> }
  | { delayMs: number };

export type ScriptedResponse =
  | {
      kind: 'sse';
      status?: number;
      /** Defaults to `content-type: text/event-stream`. */
      headers?: Record<string, string>;
      /** Written one by one, each awaited (and `drain` awaited when the socket is full). */
      pieces: Iterable<Piece> | AsyncIterable<Piece>;
      /**
       * After the pieces: `end` the response (default), `destroy` the socket (a reset midway),
       * or `hang` (never end; the socket closes when the client goes away).
       */
      finish?: 'end' | 'destroy' | 'hang';
    }
  | {
      kind: 'body';
      status: number;
      headers?: Record<string, string>;
      /** Written whole; a plain object is sent as JSON. */
      body?: string | Uint8Array | Record<string, unknown> | unknown[];
      /** Send the status and headers, then never the body (a server that stalls its error body). */
      stall?: boolean;
    }
  | { kind: 'handler'; handle: (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void> };

export interface RecordedRequest {
  method: string;
  /** Path with query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  body: unknown;
  /** Bytes of the scripted response written so far (grows while a stream runs). */
  bytesSent: number;
  /** Pieces written so far. */
  piecesSent: number;
  /** Resolves when the response is closed: `finished` false means the client went away first. */
  closed: Promise<{ finished: boolean }>;
}

export interface ScriptedUpstream {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  /** Every request received, in order of arrival. */
  readonly requests: RecordedRequest[];
  /**
   * Scripts a route. Responses are used in order, one per request; the last one keeps
   * answering. Replaces what the route had.
   */
  route(method: string, path: string, ...responses: ScriptedResponse[]): void;
  /** `POST /v1/chat/completions` */
  chat(...responses: ScriptedResponse[]): void;
  /** `GET /v1/models` answering with these ids. */
  models(ids: readonly string[]): void;
  /** Requests received on one route. */
  requestsTo(method: string, path: string): RecordedRequest[];
  /** Resolves with the n-th request (0-based) of a route once it has arrived. */
  waitForRequest(method: string, path: string, n?: number): Promise<RecordedRequest>;
  /** Sockets currently open to the fake. */
  openSockets(): number;
  /** Every connection accepted so far, open or closed. */
  connectionCount(): number;
  /** Open connections on which no byte has arrived (opened but never used for a request). */
  unusedSockets(): number;
  close(): Promise<void>;
}

/**
 * A fake server's chat handler: a body that is not a chat request is refused the server's own
 * way, anything else is answered by the fake model.
 */
export function fakeChatHandler(
  refuse: (res: ServerResponse, recorded: RecordedRequest) => void,
  answer: (body: FakeChatBody, res: ServerResponse) => void,
): ScriptedResponse {
  return {
    kind: 'handler',
    handle: (_req, res, recorded) => {
      const body = fakeChatBodySchema.safeParse(recorded.body);
      if (body.success) answer(body.data, res);
      else refuse(res, recorded);
    },
  };
}

/** `data: <json>\n\n` for each value; strings are taken as already-serialized payloads. */
export function sse(...payloads: (string | Record<string, unknown>)[]): string {
  return payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
}

/** Splits text into pieces at the given byte offsets (UTF-8), to place boundaries anywhere. */
export function splitBytes(text: string, offsets: readonly number[]): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  return cutAt(bytes, [...new Set(offsets.filter((o) => o > 0 && o < bytes.length))].sort((a, b) => a - b));
}

function key(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

function pathOnly(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Resolves on `drain` or `close`, and takes both listeners off (a race of two once() left the loser's behind on every wait). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function writePiece(res: ServerResponse, chunk: string | Uint8Array, recorded: RecordedRequest): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
  const ok = res.write(chunk);
  recorded.bytesSent += size;
  recorded.piecesSent += 1;
  if (!ok) {
    // Respect backpressure like a real server: the socket is full until the reader reads.
    await drainedOrClosed(res);
  }
  return !res.destroyed;
}

async function answer(response: ScriptedResponse, req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): Promise<void> {
  if (response.kind === 'handler') {
    await response.handle(req, res, recorded);
    return;
  }
  if (response.kind === 'body') {
    const headers: Record<string, string> = { ...response.headers };
    let payload: string | Uint8Array = '';
    if (typeof response.body === 'string' || response.body instanceof Uint8Array) payload = response.body;
    else if (response.body !== undefined) {
      payload = JSON.stringify(response.body);
      headers['content-type'] ??= 'application/json';
    }
    if (response.stall) {
      res.writeHead(response.status, headers);
      res.flushHeaders();
      return;
    }
    res.writeHead(response.status, { ...headers, 'content-length': String(Buffer.byteLength(payload)) });
    res.end(payload);
    return;
  }
  res.writeHead(response.status ?? 200, { 'content-type': 'text/event-stream', ...response.headers });
  res.flushHeaders();
  for await (const piece of response.pieces) {
    if (typeof piece === 'string' || piece instanceof Uint8Array) {
      if (!(await writePiece(res, piece, recorded))) return;
    } else if ('waitFor' in piece) {
      await piece.waitFor;
    } else {
      await new Promise((resolve) => setTimeout(resolve, piece.delayMs));
    }
    if (res.destroyed) return;
  }
  const finish = response.finish ?? 'end';
  if (finish === 'end') res.end();
  else if (finish === 'destroy') res.socket?.destroy();
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const routes = new Map<string, ScriptedResponse[]>();
  const requests: RecordedRequest[] = [];
  const waiters: (() => void)[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody === '' ? undefined : JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const closed = new Promise<{ finished: boolean }>((resolve) => {
        res.once('close', () => resolve({ finished: res.writableFinished }));
      });
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        body,
        bytesSent: 0,
        piecesSent: 0,
        closed,
      };
      requests.push(recorded);
      for (const wake of waiters.splice(0)) wake();

      const queue = routes.get(key(recorded.method, pathOnly(recorded.path)));
      const response = queue && queue.length > 1 ? queue.shift() : queue?.[0];
      if (response === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no script for ${recorded.method} ${recorded.path}` } }));
        return;
      }
      answer(response, req, res, recorded).catch(() => res.socket?.destroy());
    });
  });
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake upstream has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;

  const upstream: ScriptedUpstream = {
    url,
    baseUrl: `${url}/v1`,
    requests,
    route(method, path, ...responses) {
      routes.set(key(method, path), [...responses]);
    },
    chat(...responses) {
      upstream.route('POST', '/v1/chat/completions', ...responses);
    },
    models(ids) {
      upstream.route('GET', '/v1/models', {
        kind: 'body',
        status: 200,
        body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })) },
      });
    },
    requestsTo(method, path) {
      return requests.filter((r) => r.method === method.toUpperCase() && pathOnly(r.path) === path);
    },
    async waitForRequest(method, path, n = 0) {
      for (;;) {
        const found = upstream.requestsTo(method, path)[n];
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    openSockets() {
      return sockets.size;
    },
    connectionCount() {
      return connections;
    },
    unusedSockets() {
      return [...sockets].filter((socket) => socket.bytesRead === 0).length;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  return upstream;
}
