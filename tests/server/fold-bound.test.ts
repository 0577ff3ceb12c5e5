/**
 * A `stream: false` answer is held whole until it is sent, within MAX_FOLDED_BYTES: an upstream
 * that streams past it gets its connection closed, and the client a 502 that says to stream
 * instead, not an answer cut short and not svir's memory filled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FOLDED_BYTES } from '../../src/routes/send-completion.js';
import { sse, type Piece } from '../fakes/scripted-upstream.js';
import { errorCodeOf, HELLO, postChat, startSvir, type SvirUnderTest } from './start-svir.js';

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

const PIECE = 'x'.repeat(1024 * 1024);

/** Twice the bound in 1 MiB pieces, then nothing more (the connection stays open). */
function* pastTheBound(): Generator<Piece> {
  yield sse({ id: 'up-1', model: 'm1', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  for (let i = 0; i < (2 * MAX_FOLDED_BYTES) / PIECE.length; i++) {
    yield sse({ id: 'up-1', model: 'm1', choices: [{ index: 0, delta: { content: PIECE }, finish_reason: null }] });
  }
}

describe('stream: false past the bound', () => {
  it('is a 502 upstream_error that says to stream, and the upstream connection is closed before the end', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', pieces: pastTheBound(), finish: 'hang' });
    const call = await postChat(svir.url, { ...HELLO, stream: false });
    expect(call.status).toBe(502);
    const body: unknown = JSON.parse(call.text);
    expect(errorCodeOf(body)).toBe('upstream_error');
    expect(call.text).toContain('ask for it with stream: true');
    const [upstreamCall] = svir.upstream.requestsTo('POST', '/v1/chat/completions');
    // svir closed it: the fake never got to end its response, nor to send all it had.
    expect(await upstreamCall?.closed).toEqual({ finished: false });
    expect(upstreamCall?.bytesSent ?? 0).toBeLessThan(2 * MAX_FOLDED_BYTES);
  });
});
