/**
 * pumpCleanSteps: one step per upstream read, handed over in the read's own turn; a consumer
 * that cannot take more pauses the body until it resumes; the last step settles `finished`; an
 * abort rejects it with the abort's reason. Against a real undici request (dispatchRequest) to a
 * local server.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openaiAdapter } from '../../src/adapters/openai.js';
import type { NormalizerStep } from '../../src/normalize/normalizer.js';
import { createNormalizer } from '../../src/normalize/normalizer.js';
import { createSseDecoder } from '../../src/normalize/sse-decoder.js';
import { dispatchRequest } from '../../src/upstream/dispatch-request.js';
import { pumpCleanSteps, type ReadCleanStepsArgs, type StepSink } from '../../src/upstream/pump-clean-steps.js';
import { fixtureContext } from '../helpers/replay-fixture.js';
import { loopbackPeers, until } from '../helpers/loopback-peers.js';

const event = (text: string): string =>
  `data: ${JSON.stringify({ id: 'c1', created: 1, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const FINISH = `data: ${JSON.stringify({ id: 'c1', created: 1, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

const peers = loopbackPeers();

/** A server that hands each response to `answer`, and undici reading its body. */
async function open(answer: (res: ServerResponse) => void, signal = new AbortController().signal): Promise<ReadCleanStepsArgs> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    answer(res);
  });
  const { port } = await peers.listen(server);
  const agent = peers.agent();
  const response = await dispatchRequest(agent, { url: `http://127.0.0.1:${port}/`, method: 'GET', headers: {}, signal });
  const ctx = fixtureContext();
  return {
    body: response.body,
    adapter: openaiAdapter,
    ctx,
    decoder: createSseDecoder(),
    normalizer: createNormalizer(ctx, { makeId: (kind) => `${kind}-1`, now: () => 1_000 }),
    signal,
  };
}

function texts(steps: NormalizerStep[]): string[] {
  return steps.map((step) => step.chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''));
}

describe('pumpCleanSteps', () => {
  it('hands over a step per read and settles after the last one, done', async () => {
    let upstream: ServerResponse | undefined;
    const args = await open((res) => {
      upstream = res;
      res.write(event('a'));
    });
    const steps: NormalizerStep[] = [];
    const pump = pumpCleanSteps(args, { take: (step) => steps.push(step) > 0 });
    await until(() => steps.length === 1);
    expect(texts(steps)).toEqual(['a']);
    upstream?.write(event('b'));
    await until(() => steps.length === 2);
    expect(texts(steps)).toEqual(['a', 'b']);
    upstream?.end(FINISH);
    await pump.finished;
    expect(steps.at(-1)?.done).toBe(true);
    expect(steps.at(-1)?.chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('a consumer that joins takes the events of one socket read as one step, the finish in it', async () => {
    const words = ['a', 'b', 'c', 'd'];
    const args = await open((res) => {
      // Each event a chunk of the chunked encoding, all in one segment.
      res.socket?.cork();
      for (const word of words) res.write(event(word));
      res.end(FINISH);
      process.nextTick(() => res.socket?.uncork());
    });
    const steps: NormalizerStep[] = [];
    const pump = pumpCleanSteps(args, { take: (step) => steps.push(step) > 0, joins: () => true });
    await pump.finished;
    expect(steps).toHaveLength(1);
    expect(steps[0]?.done).toBe(true);
    expect(texts(steps)).toEqual([words.join('')]);
  });

  it('pauses the body while the consumer cannot take more, until it resumes', async () => {
    let upstream: ServerResponse | undefined;
    const args = await open((res) => {
      upstream = res;
      res.write(event('a'));
    });
    const steps: NormalizerStep[] = [];
    let room = false;
    const sink: StepSink = {
      take(step) {
        steps.push(step);
        return room;
      },
    };
    const pump = pumpCleanSteps(args, sink);
    await until(() => steps.length === 1);
    expect(texts(steps)).toEqual(['a']);
    upstream?.write(event('b'));
    // undici stops reading the socket: the server's writes back up until they stay backed up
    // (comments make no step).
    const comment = `: ${'x'.repeat(64 * 1024)}\n\n`;
    const server = upstream;
    if (server === undefined) throw new Error('no upstream response');
    let written = 0;
    for (let backedUp = false; !backedUp && written < 256 * 1024 * 1024; ) {
      while (!server.writableNeedDrain) {
        server.write(comment);
        written += comment.length;
      }
      backedUp = !(await Promise.race([once(server, 'drain').then(() => true), sleep(300).then(() => false)]));
    }
    expect(written).toBeLessThan(256 * 1024 * 1024);
    expect(texts(steps)).toEqual(['a']);
    room = true;
    pump.resume();
    await until(() => steps.length === 2);
    expect(texts(steps)).toEqual(['a', 'b']);
    upstream?.end(FINISH);
    await pump.finished;
    expect(steps.at(-1)?.done).toBe(true);
  });

  it('rejects with the abort reason when the read is aborted, and with what take threw', async () => {
    const abort = new AbortController();
    const args = await open((res) => res.write(event('a')), abort.signal);
    let taken = 0;
    const pump = pumpCleanSteps(args, {
      take() {
        taken += 1;
        return false;
      },
    });
    await until(() => taken === 1);
    const reason = new Error('client gone');
    abort.abort(reason);
    await expect(pump.finished).rejects.toBe(reason);

    const next = await open((res) => res.write(event('a')));
    const failing = pumpCleanSteps(next, {
      take() {
        throw new Error('a sender bug');
      },
    });
    await expect(failing.finished).rejects.toThrow('a sender bug');
  });

  it('turns a cut body into an upstream error step', async () => {
    const args = await open((res) => {
      res.write(event('a'));
      setTimeout(() => res.destroy(), 30);
    });
    const steps: NormalizerStep[] = [];
    const pump = pumpCleanSteps(args, { take: (step) => steps.push(step) > 0 });
    await pump.finished;
    expect(texts(steps)[0]).toBe('a');
    expect(steps.at(-1)?.error?.code).toBe('upstream_error');
    expect(steps.at(-1)?.done).toBe(false);
  });
});
