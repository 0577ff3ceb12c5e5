/**
 * readJsonBody (embeddings): an answer past its bound is refused, and its upstream socket is
 * closed before the body is: no new connection to the backend for the request svir gave up on
 * (request-sockets.ts, undici#5845). Against a real undici request to a local server.
 */
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openaiAdapter } from '../../src/adapters/openai.js';
import { SvirError } from '../../src/errors.js';
import { openChatStream } from '../../src/upstream/open-chat-stream.js';
import { readJsonBody } from '../../src/upstream/read-json-body.js';
import { makeBackend } from '../adapters/make-backend.js';
import { loopbackPeers, until } from '../helpers/loopback-peers.js';

const peers = loopbackPeers();

describe('readJsonBody', () => {
  it('refuses an answer past its bound and closes its socket without opening another', async () => {
    // A JSON answer that never ends: 4 KiB, then nothing.
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"data":[${'0,'.repeat(2048)}`);
    });
    const { port, sockets } = await peers.listen(server);
    const agent = peers.agent();
    const backend = makeBackend('openai', { url: `http://127.0.0.1:${port}/v1` });
    const signal = new AbortController().signal;
    const opened = await openChatStream({
      dispatcher: agent,
      adapter: openaiAdapter,
      backend,
      call: { url: `${backend.baseUrl}embeddings`, headers: {}, body: { model: 'e1', input: 'hi' }, changes: [] },
      signal,
      secrets: [],
      expect: 'json',
    });

    const read = readJsonBody(opened.body, { maxBytes: 1024, backend: 'b', signal });
    await expect(read).rejects.toBeInstanceOf(SvirError);
    await expect(read).rejects.toMatchObject({ code: 'upstream_error' });

    await until(() => sockets.every((socket) => socket.destroyed));
    // Time for a spare connection to show up, if one were going to.
    await sleep(500);
    expect(sockets).toHaveLength(1);
  });
});
