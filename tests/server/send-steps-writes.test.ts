/**
 * The stream sender writes the steps it takes in one turn as one write (one socket read of the
 * upstream holds many chunks, each a step of its own), and the last step together with the end
 * of the response. The bytes are the same as one write per step would send, in the same order.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import type { NormalizerStep } from '../../src/normalize/normalizer.js';
import { encodeChunk, encodeDone } from '../../src/normalize/sse-encoder.js';
import { startSummary } from '../../src/request-summary.js';
import { sendStream } from '../../src/routes/send-stream.js';
import type { CleanStepPump, StepSink } from '../../src/upstream/pump-clean-steps.js';

function chunk(text: string, first = false): CleanChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'm',
    choices: [{ index: 0, delta: first ? { role: 'assistant', content: text } : { content: text }, finish_reason: null }],
  };
}

const finish: CleanChunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_760_000_000,
  model: 'm',
  choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
};

/** Hands the sink each turn's steps in one synchronous run, the turns a macrotask apart. */
function scriptedPump(turns: NormalizerStep[][]): (sink: StepSink) => CleanStepPump {
  return (sink) => {
    let resolve: () => void = () => undefined;
    const finished = new Promise<void>((r) => {
      resolve = r;
    });
    let at = 0;
    const next = (): void => {
      const turn = turns[at++];
      if (turn === undefined) return;
      for (const step of turn) sink.take(step);
      if (turn.some((step) => step.done || step.error !== undefined)) resolve();
      else setImmediate(next);
    };
    setImmediate(next);
    return { resume: () => undefined, cancel: resolve, finished };
  };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(turns: NormalizerStep[][]): Promise<{ body: string; writes: number; ends: number }> {
  let writes = 0;
  let ends = 0;
  app = Fastify();
  app.get('/s', async (request, reply) => {
    const write = vi.spyOn(reply.raw, 'write');
    const end = vi.spyOn(reply.raw, 'end');
    await sendStream({
      reply,
      pump: scriptedPump(turns),
      summary: startSummary(request, Date.now()),
      now: () => Date.now(),
      includeUsage: false,
      signal: new AbortController().signal,
    });
    writes = write.mock.calls.length;
    ends = end.mock.calls.length;
  });
  // A real socket: the injected response of light-my-request writes through its own write.
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const response = await fetch(`${address}/s`);
  const body = await response.text();
  return { body, writes, ends };
}

describe('sendStream writes', () => {
  it('one write for the steps of one turn, and the last step with the end', async () => {
    const first = ['Hel', 'lo', ',', ' wor', 'ld'].map((text, i) => ({ chunks: [chunk(text, i === 0)], done: false }));
    const second = [{ chunks: [chunk('!')], done: false }];
    const last = [{ chunks: [finish], done: true }];
    const { body, writes, ends } = await serve([first, second, last]);
    expect(writes).toBe(2);
    expect(ends).toBe(1);
    const expected = [...first, ...second, ...last].flatMap((step) => step.chunks.map((c) => encodeChunk(c))).join('') + encodeDone();
    expect(body).toBe(expected);
  });

  it('a turn that ends the stream is one end with everything in it, and no write', async () => {
    const steps = [
      { chunks: [chunk('a', true)], done: false },
      { chunks: [chunk('b')], done: false },
      { chunks: [finish], done: true },
    ];
    const { body, writes, ends } = await serve([steps]);
    expect(writes).toBe(0);
    expect(ends).toBe(1);
    expect(body).toBe(steps.flatMap((step) => step.chunks.map((c) => encodeChunk(c))).join('') + encodeDone());
  });
});
