/**
 * dispatchRequest: undici's handler API without a Readable. The head resolves the promise and the
 * body waits, paused, for its reader (bytes sent with the head are not lost); a reader that
 * cannot take more stops undici reading the socket; an abort or a discard closes the request's
 * own socket and leaves no spare connection (undici#5845, request-sockets.ts); a failure reaches
 * the reader at once, even while it is paused. Against real sockets on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createJoinBuffer } from '../../src/upstream/create-join-buffer.js';
import { createUrlMemo } from '../../src/upstream/create-url-memo.js';
import { dispatchRequest } from '../../src/upstream/dispatch-request.js';
import type { BodySink } from '../../src/upstream/upstream-body.js';
import { loopbackPeers, until } from '../helpers/loopback-peers.js';

const peers = loopbackPeers();

interface Upstream {
  url: string;
  agent: Agent;
  /** Every connection the server accepted. */
  sockets: Socket[];
  server: Server;
}

async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> {
  const server = createServer(answer);
  const { port, sockets } = await peers.listen(server);
  const agent = peers.agent();
  return { url: `http://127.0.0.1:${port}/v1/chat/completions?x=1`, agent, sockets, server };
}

/** A reader that keeps what it hears (each read, and whether the end came after them). */
function recorder(
  room: () => boolean = () => true,
  joins?: () => boolean,
): BodySink & { text(): string; reads: string[]; ended: boolean; failed: unknown } {
  const pieces: Buffer[] = [];
  const sink = {
    ended: false,
    failed: undefined as unknown,
    reads: [] as string[],
    text: () => Buffer.concat(pieces).toString('utf8'),
    ...(joins === undefined ? {} : { joins }),
    data(bytes: Buffer) {
      if (sink.ended) throw new Error('a read after the end');
      pieces.push(Buffer.from(bytes));
      sink.reads.push(bytes.toString('utf8'));
      return room();
    },
    end() {
      sink.ended = true;
    },
    error(err: unknown) {
      sink.failed = err;
    },
  };
  return sink;
}

/**
 * An upstream that answers with one chunk of the chunked encoding per event, all in one segment:
 * undici parses them in one run and calls its handler once per chunk.
 */
const serveInOneSegment = (events: readonly string[]): Promise<Upstream> =>
  serve((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.socket?.cork();
    for (const event of events) res.write(event);
    res.end();
    process.nextTick(() => res.socket?.uncork());
  });

const post = (upstream: Upstream, signal: AbortSignal, body = Buffer.from('{"a":1}')) =>
  dispatchRequest(upstream.agent, { url: upstream.url, method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });

describe('dispatchRequest', () => {
  it('sends the request as given and holds the body sent with the head until a reader comes', async () => {
    let seen: { method?: string; url?: string; body: string } = { body: '' };
    const upstream = await serve((req, res) => {
      let body = '';
      req.on('data', (bytes: Buffer) => (body += bytes.toString('utf8')));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, body };
        res.writeHead(201, { 'content-type': 'text/event-stream', 'x-two': ['a', 'b'] });
        res.end('data: one\n\n');
      });
    });
    const response = await post(upstream, new AbortController().signal);
    expect(seen).toEqual({ method: 'POST', url: '/v1/chat/completions?x=1', body: '{"a":1}' });
    expect(response.statusCode).toBe(201);
    expect(response.header('content-type')).toBe('text/event-stream');
    expect(response.header('x-two')).toEqual(['a', 'b']);
    // Nobody reads yet: nothing is lost meanwhile.
    await sleep(50);
    const sink = recorder();
    response.body.read(sink);
    await until(() => sink.ended);
    expect(sink.text()).toBe('data: one\n\n');
    expect(response.body.over).toBe(true);
  });

  it('hands a reader that joins the pieces of one socket read as one read, before the end; one by one otherwise', async () => {
    const events = ['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n', 'data: [DONE]\n\n'];
    const upstream = await serveInOneSegment(events);
    const joined = recorder(
      () => true,
      () => true,
    );
    (await post(upstream, new AbortController().signal)).body.read(joined);
    await until(() => joined.ended);
    expect(joined.reads).toEqual([events.join('')]);

    const pieceByPiece = recorder(
      () => true,
      () => false,
    );
    (await post(upstream, new AbortController().signal)).body.read(pieceByPiece);
    await until(() => pieceByPiece.ended);
    expect(pieceByPiece.reads).toEqual(events);

    expect(upstream.sockets).toHaveLength(1);
  });

  // A dispatcher of svir's pool joins into its own buffer, reused read after read; a plain one concatenates.
  it.each([
    ['a plain agent', (agent: Agent): Agent => agent],
    ['a pool dispatcher', (agent: Agent): Agent => Object.assign(agent, { joinBuffer: createJoinBuffer(), urlParts: createUrlMemo() })],
  ])('joined reads of any size, one after another, each hold their own bytes (%s)', async (_, dispatcherOf) => {
    const events = Array.from({ length: 300 }, (_, i) => `data: ${String(i).padStart(4, '0')}${'é'.repeat(400)}\n\n`);
    const upstream = await serveInOneSegment(events);
    const dispatcher = dispatcherOf(upstream.agent);
    for (let i = 0; i < 3; i++) {
      const sink = recorder(
        () => true,
        () => true,
      );
      const response = await dispatchRequest(dispatcher, { url: upstream.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from('{}'), signal: new AbortController().signal });
      response.body.read(sink);
      await until(() => sink.ended);
      // Reads may cut a character in two: their bytes, put together, are the answer's.
      expect(sink.text()).toBe(events.join(''));
      expect(sink.reads.length).toBeLessThan(events.length);
    }
  });

  // A reader that joins does so only while it has room, as the stream sender does.
  it.each([
    ['a reader that joins', true],
    ['a reader that takes the pieces one by one', false],
  ])('stops reading the socket while %s cannot take more, and reads on after resume', async (_, joins) => {
    let upstream: ServerResponse | undefined;
    const server = await serve((req, res) => {
      req.resume();
      upstream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('first');
    });
    const response = await post(server, new AbortController().signal);
    let room = false;
    const sink = recorder(() => room, joins ? () => room : undefined);
    response.body.read(sink);
    await until(() => sink.text() === 'first');
    const res = upstream;
    if (res === undefined) throw new Error('no upstream response');
    // Writes back up once undici stops reading (256 MiB would mean it never did).
    const piece = 'x'.repeat(64 * 1024);
    let written = 0;
    for (let backedUp = false; !backedUp && written < 256 * 1024 * 1024; ) {
      while (!res.writableNeedDrain) {
        res.write(piece);
        written += piece.length;
      }
      backedUp = !(await Promise.race([new Promise<boolean>((resolve) => res.once('drain', () => resolve(true))), sleep(300).then(() => false)]));
    }
    expect(written).toBeLessThan(256 * 1024 * 1024);
    expect(sink.text().length).toBeLessThan(5 + 2 * piece.length);
    room = true;
    response.body.resume();
    res.end('last');
    await until(() => sink.ended);
    expect(sink.text()).toBe(`first${'x'.repeat(written)}last`);
  });

  it('rejects with the abort reason before the head, and tells the reader after it', async () => {
    const upstream = await serve((req) => req.resume());
    const before = new AbortController();
    const pending = post(upstream, before.signal);
    await until(() => upstream.sockets.length === 1);
    const reason = new Error('client gone');
    before.abort(reason);
    await expect(pending).rejects.toBe(reason);

    const streaming = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('a');
    });
    const after = new AbortController();
    const response = await post(streaming, after.signal);
    // A reader that cannot take more still hears the failure at once.
    const sink = recorder(() => false);
    response.body.read(sink);
    await until(() => sink.text() === 'a');
    after.abort(reason);
    expect(sink.failed).toBe(reason);
    expect(response.body.over).toBe(true);
    await until(() => streaming.sockets.every((socket) => socket.destroyed));
    // Time for a spare connection to show up, if one were going to.
    await sleep(300);
    expect(streaming.sockets).toHaveLength(1);
  });

  it('closes the socket of a discarded body without opening another, and the reader hears nothing more', async () => {
    const upstream = await serve((req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('never ends');
    });
    const response = await post(upstream, new AbortController().signal);
    const sink = recorder();
    response.body.read(sink);
    await until(() => sink.text() === 'never ends');
    response.body.discard();
    expect(response.body.over).toBe(true);
    await until(() => upstream.sockets.every((socket) => socket.destroyed));
    await sleep(300);
    expect(upstream.sockets).toHaveLength(1);
    expect(sink.failed).toBeUndefined();
    expect(sink.ended).toBe(false);
  });

  it('rejects with the transport error when nothing answers, and a body ended whole keeps its connection', async () => {
    const closed = await serve(() => undefined);
    const port = new URL(closed.url).port;
    await new Promise((resolve) => closed.server.close(resolve));
    const refused = dispatchRequest(closed.agent, { url: `http://127.0.0.1:${port}/`, method: 'GET', headers: {}, signal: new AbortController().signal });
    await expect(refused).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const upstream = await serve((req, res) => {
      req.resume();
      res.end('ok');
    });
    for (let i = 0; i < 3; i++) {
      const response = await post(upstream, new AbortController().signal);
      const sink = recorder();
      response.body.read(sink);
      await until(() => sink.ended);
      expect(sink.text()).toBe('ok');
      // undici hands a socket to the next request one event loop turn after an answer ended.
      await sleep(10);
    }
    expect(upstream.sockets).toHaveLength(1);
  });
});
