/**
 * A fake OpenAI-compatible upstream that misbehaves on purpose. Each chat request follows a
 * script: an answer (stream events, or a plain body with a status) and optionally one fault
 * injected at one phase of the response. It records every request it received, every byte it
 * managed to write (and how often a write met backpressure), and when each of its sockets
 * closed and who closed it, so that a test can prove svir closed the upstream connection.
 *
 * node:http on 127.0.0.1, port 0. No timers except a script's `delayMs` pauses, cleared by close().
 */
import { createHash } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildChatEvents } from './chat-events.js';

/**
 * `after-done` goes beyond the five phases of the issue: the stream is complete, and then the
 * server misbehaves before it ends the response (svir must not hold the connection for it).
 */
export const FAULT_PHASES = ['before-headers', 'after-headers', 'mid-chunk', 'between-chunks', 'after-finish', 'after-done'] as const;
export type FaultPhase = (typeof FAULT_PHASES)[number];

export const FAULT_KINDS = [
  'reset',
  'stall',
  'close',
  'garbage',
  'not-json',
  'giant-line',
  'wrong-content-type',
  'redirect',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** These live in the response head, so they exist only before the headers are out. */
export const HEAD_ONLY_FAULTS: readonly FaultKind[] = ['wrong-content-type', 'redirect'];

/** Whether a fault can be injected at a phase. */
export function faultApplies(kind: FaultKind, phase: FaultPhase): boolean {
  return phase === 'before-headers' || !HEAD_ONLY_FAULTS.includes(kind);
}

/** Size of the line without a line break that `giant-line` writes. */
export const GIANT_LINE_BYTES = 10 * 1024 * 1024;

export interface Fault {
  kind: FaultKind;
  phase: FaultPhase;
  /**
   * For `mid-chunk` and `between-chunks`: how many whole events go out before the fault
   * (default 2: the role chunk and the first piece of content, so the client has a chunk).
   */
  afterEvents?: number;
  /**
   * For the phases after the first event: the fault waits for this first. A reset makes the
   * kernel drop what the peer had not read yet, so a test that needs the chunks before the
   * fault to arrive opens this gate once its client has seen them.
   */
  waitFor?: Promise<unknown>;
}

export interface Script {
  /** Status of the answer (default 200). */
  status?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** A plain answer sent as is with a Content-Length (an error body, a non-stream answer). */
  body?: string;
  /** Content type of `body` (default application/json). */
  bodyContentType?: string;
  /** Data payloads of the stream, without `data: ` and the blank line; may be lazy. */
  events?: Iterable<string>;
  /** Send `data: [DONE]` after the events (default true). */
  done?: boolean;
  /** Pause between events, in ms (default 0: as fast as the socket takes them). */
  delayMs?: number;
  fault?: Fault;
  /** Nothing is answered until this settles (a barrier: every request of a test is in flight). */
  holdUntil?: Promise<unknown>;
}

export interface SocketRecord {
  id: number;
  openedAt: number;
  /** performance.now() when the socket closed; undefined while open. */
  closedAt: number | undefined;
  /** The fake closed it (reset, close fault, shutdown); false: svir closed it. */
  closedByFake: boolean;
  /** Resolves with closedAt once the socket is closed. */
  closed: Promise<number>;
}

export interface UpstreamRecord {
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Header names and values exactly as received, to look for injected lines. */
  rawHeaders: string[];
  receivedAt: number;
  bodyBytes: number;
  bodySha256: string;
  /** The body, kept when at most `keepBodyBytes`. */
  body: Buffer | undefined;
  /** The body parsed as JSON when kept and parseable. */
  json: unknown;
  socket: SocketRecord;
  /** Response bytes the socket accepted (what a fast upstream managed to push). */
  bytesWritten: number;
  /** Writes that met backpressure (write() returned false) and waited for drain. */
  blockedWrites: number;
  /** The fake finished its answer (ended the response or wrote every byte of a head fault). */
  responseEnded: boolean;
  /** The script this request followed. */
  script: Script;
}

export interface FaultUpstreamOptions {
  /** Model ids for GET /v1/models. */
  models?: string[];
  /** Bodies up to this size are kept on the record (default 2 MiB). */
  keepBodyBytes?: number;
  /** Keep only the latest records (requests and closed sockets); long soak runs set this. */
  maxRecords?: number;
  /** The script of a request when the queue is empty (default: a short "Hello world!" answer). */
  script?: (request: UpstreamRecord) => Script;
  /** How long an idle kept-alive socket stays open (default 5 s, as Node's and uvicorn's). */
  keepAliveTimeoutMs?: number;
}

export interface FaultUpstream {
  /** Base URL ending in `/v1/`. */
  readonly url: string;
  readonly origin: string;
  readonly requests: readonly UpstreamRecord[];
  readonly sockets: readonly SocketRecord[];
  /** Scripts for the next requests, first in first out; then the default script. */
  enqueue(...scripts: Script[]): void;
  setScript(script: (request: UpstreamRecord) => Script): void;
  /** Resolves with the next chat request once its body has been read. */
  nextRequest(): Promise<UpstreamRecord>;
  /** Resolves with the close time, or undefined if still open after `timeoutMs`. */
  waitForSocketClose(socket: SocketRecord, timeoutMs: number): Promise<number | undefined>;
  openSocketCount(): number;
  close(): Promise<void>;
}

/** The default answer: role, three pieces of content, finish, usage. */
export function helloScript(model = 'fake-model'): Script {
  return {
    events: buildChatEvents({
      model,
      content: ['Hello', ' world', '!'],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    }),
  };
}

/** Bytes that are neither HTTP nor SSE: NUL, 0xff, lone CR, CRLF pairs, invalid UTF-8; seeded. */
export function garbageBytes(length = 4096, seed = 0x5eed): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    out[i] = state >>> 24;
  }
  // A fixed nasty prefix so that every phase sees the same worst bytes first.
  Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0xc3, 0x28, 0x0d, 0x0a, 0x0d, 0x0a, 0xf0, 0x90]).copy(out);
  return out;
}

const GARBAGE = garbageBytes();
const GIANT_PIECE = Buffer.alloc(64 * 1024, 'x');

export async function startFaultUpstream(options: FaultUpstreamOptions = {}): Promise<FaultUpstream> {
  const keepBodyBytes = options.keepBodyBytes ?? 2 * 1024 * 1024;
  const models = options.models ?? ['fake-model'];
  let defaultScript: (request: UpstreamRecord) => Script = options.script ?? (() => helloScript());
  const queue: Script[] = [];
  const requests: UpstreamRecord[] = [];
  const sockets: SocketRecord[] = [];
  const liveSockets = new Map<Socket, SocketRecord>();
  const delayTimers = new Set<NodeJS.Timeout>();
  const requestWaiters: Array<(record: UpstreamRecord) => void> = [];
  let shuttingDown = false;
  let requestCount = 0;
  let socketCount = 0;
  const maxRecords = options.maxRecords ?? Number.POSITIVE_INFINITY;

  function trim<T>(records: T[]): void {
    if (records.length > maxRecords) records.splice(0, records.length - maxRecords);
  }

  const server: Server = createServer({ keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000 });

  server.on('connection', (socket: Socket) => {
    let resolveClosed: (at: number) => void = () => undefined;
    const record: SocketRecord = {
      id: socketCount++,
      openedAt: performance.now(),
      closedAt: undefined,
      closedByFake: false,
      closed: new Promise<number>((resolve) => {
        resolveClosed = resolve;
      }),
    };
    sockets.push(record);
    trim(sockets);
    liveSockets.set(socket, record);
    // A peer that resets mid-write must not crash the fake: the close is what gets recorded.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      record.closedAt = performance.now();
      liveSockets.delete(socket);
      resolveClosed(record.closedAt);
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res).catch(() => {
      // The peer went away in the middle of a write: nothing to answer any more.
      res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const socket = req.socket;
    const socketRecord = liveSockets.get(socket) ?? closedSocketRecord();
    const receivedAt = performance.now();
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    let bodyBytes = 0;
    for await (const piece of req) {
      if (!Buffer.isBuffer(piece)) continue;
      hash.update(piece);
      bodyBytes += piece.length;
      if (bodyBytes <= keepBodyBytes) kept.push(piece);
    }
    const body = bodyBytes <= keepBodyBytes ? Buffer.concat(kept) : undefined;
    let json: unknown = undefined;
    if (body !== undefined && body.length > 0) {
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
    }
    const path = req.url ?? '/';
    const record: UpstreamRecord = {
      index: requestCount++,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      receivedAt,
      bodyBytes,
      bodySha256: hash.digest('hex'),
      body,
      json,
      socket: socketRecord,
      bytesWritten: 0,
      blockedWrites: 0,
      responseEnded: false,
      script: {},
    };
    requests.push(record);
    trim(requests);

    if (record.method === 'GET' && /\/models\/?$/.test(path.split('?')[0] ?? '')) {
      record.script = { body: JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }) };
      await answerPlain(record, res, req.socket, record.script);
      return;
    }
    if (!/\/chat\/completions\/?$/.test(path.split('?')[0] ?? '')) {
      record.script = { status: 404, body: JSON.stringify({ error: { message: `no route ${path}` } }) };
      await answerPlain(record, res, req.socket, record.script);
      return;
    }

    const script = queue.shift() ?? defaultScript(record);
    validateScript(script);
    record.script = script;
    for (const waiter of requestWaiters.splice(0)) waiter(record);
    await answer(record, req, res, script);
  }

  function closedSocketRecord(): SocketRecord {
    const at = performance.now();
    return { id: -1, openedAt: at, closedAt: at, closedByFake: false, closed: Promise.resolve(at) };
  }

  function markClosedByFake(socket: Socket): void {
    const record = liveSockets.get(socket);
    if (record !== undefined) record.closedByFake = true;
  }

  /** Writes through the response (or the raw socket) and waits for drain on backpressure. */
  async function write(
    record: UpstreamRecord,
    target: ServerResponse | Socket,
    socket: Socket,
    data: string | Buffer,
  ): Promise<boolean> {
    if (socket.destroyed || shuttingDown) return false;
    const ok = target.write(data);
    record.bytesWritten += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    if (ok) return true;
    record.blockedWrites += 1;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        target.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      target.on('drain', done);
      socket.on('close', done);
    });
    return !socket.destroyed && !shuttingDown;
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        delayTimers.delete(timer);
        resolve();
      }, ms);
      delayTimers.add(timer);
    });
  }

  async function answerPlain(record: UpstreamRecord, res: ServerResponse, socket: Socket, script: Script): Promise<void> {
    const payload = Buffer.from(script.body ?? '');
    res.writeHead(script.status ?? 200, {
      'content-type': script.bodyContentType ?? 'application/json',
      'content-length': String(payload.length),
      ...script.headers,
    });
    await write(record, res, socket, payload);
    res.end();
    record.responseEnded = true;
  }

  async function answer(record: UpstreamRecord, req: IncomingMessage, res: ServerResponse, script: Script): Promise<void> {
    const socket = req.socket;
    const fault = script.fault;
    await script.holdUntil;
    if (socket.destroyed || shuttingDown) return;
    if (fault?.phase === 'before-headers') {
      await headFault(record, res, socket, fault.kind);
      return;
    }
    if (script.body !== undefined) {
      await answerPlain(record, res, socket, script);
      return;
    }
    res.writeHead(script.status ?? 200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...(fault?.kind === 'close' ? { connection: 'close' } : {}),
      ...script.headers,
    });
    res.flushHeaders();
    if (fault?.phase === 'after-headers') {
      await streamFault(record, res, socket, fault.kind, 'line-start');
      return;
    }
    const faultAt = fault?.phase === 'mid-chunk' || fault?.phase === 'between-chunks' ? (fault.afterEvents ?? 2) : -1;
    let sent = 0;
    for (const event of script.events ?? []) {
      const frame = `data: ${event}\n\n`;
      if (fault !== undefined && sent === faultAt) {
        if (fault.phase === 'mid-chunk') {
          if (!(await write(record, res, socket, frame.slice(0, Math.floor(frame.length / 2))))) return;
          await fault.waitFor;
          await streamFault(record, res, socket, fault.kind, 'mid-line');
        } else {
          await fault.waitFor;
          await streamFault(record, res, socket, fault.kind, 'line-start');
        }
        return;
      }
      if (!(await write(record, res, socket, frame))) return;
      sent += 1;
      if (script.delayMs !== undefined && script.delayMs > 0) await pause(script.delayMs);
      if (socket.destroyed || shuttingDown) return;
    }
    if (fault !== undefined && fault.phase !== 'after-done') {
      // after-finish, or a script with fewer events than afterEvents: the fault replaces [DONE].
      await fault.waitFor;
      await streamFault(record, res, socket, fault.kind, 'line-start');
      return;
    }
    if (script.done !== false && !(await write(record, res, socket, 'data: [DONE]\n\n'))) return;
    if (fault?.phase === 'after-done') {
      await fault.waitFor;
      await streamFault(record, res, socket, fault.kind, 'line-start');
      return;
    }
    res.end();
    record.responseEnded = true;
  }

  /** A fault in the response head: the client of the fake never sees a usable status line. */
  async function headFault(record: UpstreamRecord, res: ServerResponse, socket: Socket, kind: FaultKind): Promise<void> {
    switch (kind) {
      case 'reset':
        markClosedByFake(socket);
        socket.resetAndDestroy();
        return;
      case 'stall':
        return;
      case 'close':
        markClosedByFake(socket);
        socket.end();
        return;
      case 'garbage':
        await write(record, socket, socket, GARBAGE);
        return;
      case 'not-json': {
        // An error status whose body claims JSON and is not: the error reader must survive it.
        await answerPlain(record, res, socket, {
          status: 500,
          body: '<html><body>Internal Server Error {"error": </body></html>',
        });
        return;
      }
      case 'giant-line': {
        // A header line that never ends: the HTTP client must give up at its header limit.
        if (!(await write(record, socket, socket, 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-giant: '))) return;
        await giantLine(record, socket, socket);
        return;
      }
      case 'wrong-content-type': {
        // A complete non-stream answer with status 200: not a stream, whatever the status says.
        await answerPlain(record, res, socket, {
          body: JSON.stringify({
            id: 'chatcmpl-fake',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: 'fake-model',
            choices: [{ index: 0, message: { role: 'assistant', content: 'not a stream' }, finish_reason: 'stop' }],
          }),
        });
        return;
      }
      case 'redirect': {
        res.writeHead(307, { location: `${origin}/redirected/v1/chat/completions`, 'content-length': '0' });
        res.end();
        record.responseEnded = true;
        return;
      }
    }
  }

  /** A fault once the stream's headers are out; `mid-line` means half an event was written. */
  async function streamFault(
    record: UpstreamRecord,
    res: ServerResponse,
    socket: Socket,
    kind: FaultKind,
    where: 'line-start' | 'mid-line',
  ): Promise<void> {
    switch (kind) {
      case 'reset':
        markClosedByFake(socket);
        socket.resetAndDestroy();
        return;
      case 'stall':
        return;
      case 'close':
        // A clean end of the HTTP response (and, by `connection: close`, of the socket).
        markClosedByFake(socket);
        res.end();
        record.responseEnded = true;
        return;
      case 'garbage':
        await write(record, res, socket, GARBAGE);
        return;
      case 'not-json':
        await write(record, res, socket, where === 'mid-line' ? '#not json}\n\n' : 'data: this is {not json\n\n');
        return;
      case 'giant-line':
        if (where === 'line-start' && !(await write(record, res, socket, 'data: "'))) return;
        await giantLine(record, res, socket);
        return;
      case 'wrong-content-type':
      case 'redirect':
        throw new Error(`fault ${kind} exists only before headers`);
    }
  }

  /** GIANT_LINE_BYTES without a line break, as fast as the socket takes them; stops when closed. */
  async function giantLine(record: UpstreamRecord, target: ServerResponse | Socket, socket: Socket): Promise<void> {
    for (let written = 0; written < GIANT_LINE_BYTES; written += GIANT_PIECE.length) {
      if (!(await write(record, target, socket, GIANT_PIECE))) return;
    }
    record.responseEnded = true;
  }

  function validateScript(script: Script): void {
    const fault = script.fault;
    if (fault !== undefined && !faultApplies(fault.kind, fault.phase)) {
      throw new Error(`fault ${fault.kind} cannot happen at ${fault.phase}`);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep backlog: the concurrency suite opens a thousand connections at once.
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fault upstream has no TCP address');
  const origin = `http://127.0.0.1:${address.port}`;

  return {
    url: `${origin}/v1/`,
    origin,
    requests,
    sockets,
    enqueue(...scripts: Script[]): void {
      for (const script of scripts) validateScript(script);
      queue.push(...scripts);
    },
    setScript(script: (request: UpstreamRecord) => Script): void {
      defaultScript = script;
    },
    nextRequest(): Promise<UpstreamRecord> {
      return new Promise((resolve) => requestWaiters.push(resolve));
    },
    async waitForSocketClose(socket: SocketRecord, timeoutMs: number): Promise<number | undefined> {
      if (socket.closedAt !== undefined) return socket.closedAt;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      try {
        return await Promise.race([socket.closed, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    openSocketCount(): number {
      return liveSockets.size;
    },
    async close(): Promise<void> {
      shuttingDown = true;
      for (const timer of delayTimers) clearTimeout(timer);
      delayTimers.clear();
      for (const [socket, record] of liveSockets) {
        record.closedByFake = true;
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
