/**
 * The stream sender writes the steps it takes in one turn as one write (one socket read of the
 * upstream holds many chunks, each a step of its own), and the last step together with the end
 * of the response. The bytes are the same as one write per step would send, in the same order.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import type { NormalizerStep } from '../../src/normalize/normalizer.js';
import { createChunkEncoder, encodeDone } from '../../src/normalize/sse-encoder.js';
import { startSummary } from '../../src/logging/start-summary.js';
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

/** The bytes of one stream's steps, through one encoder as sendStream makes one per stream. */
function encodeStream(steps: readonly NormalizerStep[]): string {
  const encode = createChunkEncoder();
  return steps.flatMap((step) => step.chunks.map((c) => encode(c))).join('');
}

/**
 * Hands the sink each turn's steps in one synchronous run, the turns a macrotask apart;
 * `afterTake` is called after each step is taken, in the same run.
 */
function scriptedPump(turns: NormalizerStep[][], afterTake?: (turn: number, step: number) => void): (sink: StepSink) => CleanStepPump {
  return (sink) => {
    let resolve: () => void = () => undefined;
    const finished = new Promise<void>((r) => {
      resolve = r;
    });
    let at = 0;
    const next = (): void => {
      const index = at;
      const turn = turns[at++];
      if (turn === undefined) return;
      turn.forEach((step, i) => {
        sink.take(step);
        afterTake?.(index, i);
      });
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

interface Served {
  body: string;
  writes: number;
  ends: number;
  /** Bytes handed to the kernel after each step of the first turn was taken, in its run. */
  onWire: number[];
}

async function serve(turns: NormalizerStep[][], alone?: boolean): Promise<Served> {
  let writes = 0;
  let ends = 0;
  const onWire: number[] = [];
  app = Fastify();
  app.get('/s', async (request, reply) => {
    const write = vi.spyOn(reply.raw, 'write');
    const end = vi.spyOn(reply.raw, 'end');
    const socket = reply.raw.socket;
    await sendStream({
      reply,
      pump: scriptedPump(turns, (turn) => {
        // bytesWritten counts what the socket still buffers too (its cork).
        if (turn === 0 && socket !== null) onWire.push(socket.bytesWritten - socket.writableLength);
      }),
      summary: startSummary(request, Date.now()),
      now: () => Date.now(),
      includeUsage: false,
      signal: new AbortController().signal,
      ...(alone === undefined ? {} : { alone: () => alone }),
    });
    writes = write.mock.calls.length;
    ends = end.mock.calls.length;
  });
  // A real socket: the injected response of light-my-request writes through its own write.
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const response = await fetch(`${address}/s`);
  const body = await response.text();
  return { body, writes, ends, onWire };
}

describe('sendStream writes', () => {
  it('one write for the steps of one turn, and the last step with the end', async () => {
    const first = ['Hel', 'lo', ',', ' wor', 'ld'].map((text, i) => ({ chunks: [chunk(text, i === 0)], done: false }));
    const second = [{ chunks: [chunk('!')], done: false }];
    const last = [{ chunks: [finish], done: true }];
    const { body, writes, ends } = await serve([first, second, last]);
    expect(writes).toBe(2);
    expect(ends).toBe(1);
    const expected = encodeStream([...first, ...second, ...last]) + encodeDone();
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
    expect(body).toBe(encodeStream(steps) + encodeDone());
  });

  it('alone: the first event leaves with the head before the rest of its read is run; the rest of that turn is one write', async () => {
    const first = ['Hel', 'lo', ',', ' wor', 'ld'].map((text, i) => ({ chunks: [chunk(text, i === 0)], done: false }));
    const last = [{ chunks: [finish], done: true }];
    const { body, writes, ends, onWire } = await serve([first, last], true);
    // The first step went out as it was taken.
    expect(onWire[0]).toBeGreaterThan(0);
    // The rest of the turn went in one piece at its end: nothing more while it ran.
    expect(new Set(onWire).size).toBe(1);
    expect(writes).toBe(2);
    expect(ends).toBe(1);
    expect(body).toBe(encodeStream([...first, ...last]) + encodeDone());
  });

  it('alone, a first event alone in its turn: the same writes as when busy', async () => {
    const turns = [[{ chunks: [chunk('a', true)], done: false }], [{ chunks: [chunk('b')], done: false }], [{ chunks: [finish], done: true }]];
    const alone = await serve(turns, true);
    await app?.close();
    app = undefined;
    const busy = await serve(turns, false);
    expect(alone.writes).toBe(2);
    expect(busy.writes).toBe(2);
    expect(alone.ends).toBe(1);
    expect(alone.body).toBe(busy.body);
  });

  it('alone, a whole answer in one turn: the first event goes out first, the rest with the end', async () => {
    const steps = [
      { chunks: [chunk('a', true)], done: false },
      { chunks: [chunk('b')], done: false },
      { chunks: [finish], done: true },
    ];
    const { body, writes, ends, onWire } = await serve([steps], true);
    expect(onWire[0]).toBeGreaterThan(0);
    expect(writes).toBe(1);
    expect(ends).toBe(1);
    expect(body).toBe(encodeStream(steps) + encodeDone());
  });

  it('takes the pieces of one upstream read joined: busy from the start, alone after the first event; not after the end', async () => {
    async function joinsSeen(alone: boolean): Promise<boolean[]> {
      const seen: boolean[] = [];
      app = Fastify();
      app.get('/s', async (request, reply) => {
        await sendStream({
          reply,
          pump: (sink) => {
            seen.push(sink.joins?.() === true);
            sink.take({ chunks: [chunk('a', true)], done: false });
            seen.push(sink.joins?.() === true);
            sink.take({ chunks: [finish], done: true });
            seen.push(sink.joins?.() === true);
            return { resume: () => undefined, cancel: () => undefined, finished: Promise.resolve() };
          },
          summary: startSummary(request, Date.now()),
          now: () => Date.now(),
          includeUsage: false,
          signal: new AbortController().signal,
          alone: () => alone,
        });
      });
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      await (await fetch(`${address}/s`)).text();
      await app.close();
      app = undefined;
      return seen;
    }
    expect(await joinsSeen(false)).toEqual([true, true, false]);
    expect(await joinsSeen(true)).toEqual([false, true, false]);
  });

  it('busy: the steps of the first turn stay one write, nothing goes out while it runs', async () => {
    const first = ['a', 'b', 'c'].map((text, i) => ({ chunks: [chunk(text, i === 0)], done: false }));
    const { writes, onWire } = await serve([first, [{ chunks: [finish], done: true }]], false);
    expect(onWire).toEqual([0, 0, 0]);
    expect(writes).toBe(1);
  });
});
