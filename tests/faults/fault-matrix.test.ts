/**
 * Every upstream fault at every phase where it can happen, through svir end to end, streamed
 * and not. For each: the client gets the right status (nothing was sent yet) or exactly one
 * error event and no [DONE] (the stream had started); the upstream connection is closed; and
 * svir answers the next request. After the suite, no timer, socket or listener is left behind.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAULT_KINDS,
  FAULT_PHASES,
  faultApplies,
  helloScript,
  startFaultUpstream,
  type FaultKind,
  type FaultPhase,
  type FaultUpstream,
} from './fault-upstream.js';
import { parseCleanStream, readErrorBody } from './parse-clean-stream.js';
import { resourceSnapshot, waitForResourcesBack, type ResourceSnapshot } from './resource-snapshot.js';
import { startSvir, type RunningSvir } from './start-svir.js';

/** A bound on an event (the connection closes), not a speed: generous on a loaded machine. */
const CLOSE_BOUND_MS = 3_000;

let baseline: ResourceSnapshot;
let upstream: FaultUpstream;
let svir: RunningSvir;
let agent: Agent;

beforeAll(async () => {
  baseline = resourceSnapshot();
  upstream = await startFaultUpstream({ models: ['fault-model'] });
  svir = await startSvir({
    server: { keepaliveMs: 0 },
    backends: [
      {
        name: 'faulty',
        type: 'openai',
        url: upstream.url,
        models: ['fault-model'],
        timeouts: { connectMs: 1_000, firstTokenMs: 300, idleMs: 300 },
      },
      {
        // The same upstream with time to spare: a giant line must end on svir's line bound,
        // not on a deadline that a loaded machine reaches first while reading 8 MiB.
        name: 'patient',
        type: 'openai',
        url: upstream.url,
        models: ['patient-model'],
        timeouts: { connectMs: 1_000, firstTokenMs: 30_000, idleMs: 30_000 },
      },
    ],
  });
  agent = new Agent();
});

afterAll(async () => {
  // Idempotent: the last test closes everything itself to count what is left.
  await agent.close().catch(() => undefined);
  await svir.close().catch(() => undefined);
  await upstream.close().catch(() => undefined);
});

interface Expected {
  /** The answer was complete before the fault (after [DONE]): the client gets all of it. */
  complete: boolean;
  /** Whether svir had sent its headers and a chunk before the fault. */
  inStream: boolean;
  codes: string[];
}

/** What the client must see for a fault at a phase. */
function expectedFor(kind: FaultKind, phase: FaultPhase, stream: boolean): Expected {
  // Headers wait for the first upstream chunk: until one came, the failure is a real status.
  const inStream = stream && (phase === 'mid-chunk' || phase === 'between-chunks' || phase === 'after-finish');
  if (phase === 'after-done') return { complete: true, inStream: false, codes: [] };
  if (kind === 'stall') return { complete: false, inStream, codes: ['upstream_timeout'] };
  // Garbage that happens to be lines of unknown SSE fields is ignored, as SSE says; then the
  // stream stalls and the idle limit fires. Either way the client hears of it once.
  if (kind === 'garbage') return { complete: false, inStream, codes: ['upstream_error', 'upstream_timeout'] };
  return { complete: false, inStream, codes: ['upstream_error'] };
}

/** Faults where the fake sends a whole, well-framed HTTP answer (an error or a non-stream body). */
function completeExchange(kind: FaultKind, phase: FaultPhase): boolean {
  return phase === 'before-headers' && (kind === 'not-json' || kind === 'wrong-content-type' || kind === 'redirect');
}

const STATUS_OF: Record<string, number> = { upstream_error: 502, upstream_timeout: 504 };

async function chat(
  stream: boolean,
  onBytes: (soFar: string) => void = () => undefined,
  model = 'fault-model',
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(`${svir.url}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream }),
  });
  const pieces: Buffer[] = [];
  for await (const piece of response.body) {
    pieces.push(Buffer.isBuffer(piece) ? piece : Buffer.from(piece));
    onBytes(Buffer.concat(pieces).toString('utf8'));
  }
  return { status: response.statusCode, headers: response.headers, text: Buffer.concat(pieces).toString('utf8') };
}

/**
 * Opens when the client has its first bytes (or after a bound, so a svir that sends nothing
 * fails the assertions instead of hanging): the fault comes after what the client must keep.
 */
function firstBytesGate(): { gate: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CLOSE_BOUND_MS);
    open = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { gate, open };
}

/** The whole hello answer, streamed (clean, no error, [DONE] last) or not. */
function expectHello(text: string, stream: boolean): void {
  if (stream) {
    const parsed = parseCleanStream(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.content).toBe('Hello world!');
    expect(parsed.doneLast).toBe(true);
  } else {
    expect(text).toContain('Hello world!');
  }
}

async function expectServing(stream: boolean): Promise<void> {
  upstream.enqueue(helloScript());
  const answer = await chat(stream);
  expect(answer.status).toBe(200);
  expectHello(answer.text, stream);
}

const cases = FAULT_KINDS.flatMap((kind) =>
  FAULT_PHASES.filter((phase) => faultApplies(kind, phase)).flatMap((phase) =>
    [true, false].map((stream) => ({ kind, phase, stream })),
  ),
);

describe('upstream faults through svir', () => {
  it.each(cases)('$kind at $phase (stream: $stream)', async ({ kind, phase, stream }) => {
    const expected = expectedFor(kind, phase, stream);
    const { gate, open } = firstBytesGate();
    const gated = expected.inStream || expected.complete;
    upstream.enqueue({ ...helloScript(), fault: gated ? { kind, phase, waitFor: gate } : { kind, phase } });
    const before = upstream.requests.length;
    // After [DONE], the fault waits until svir has passed the whole answer on (a reset would
    // make the kernel drop a [DONE] svir had not read yet); before it, until the first bytes.
    const model = kind === 'giant-line' ? 'patient-model' : 'fault-model';
    const answer = await chat(
      stream,
      (soFar) => {
        if (!expected.complete || !stream || soFar.includes('data: [DONE]')) open();
      },
      model,
    );
    open();
    const record = upstream.requests[before];
    expect(record, 'the fault upstream saw the request').toBeDefined();

    if (expected.complete) {
      expect(answer.status, answer.text.slice(0, 400)).toBe(200);
      expectHello(answer.text, stream);
    } else if (expected.inStream) {
      expect(answer.status).toBe(200);
      const parsed = parseCleanStream(answer.text);
      expect(parsed.errors, answer.text.slice(-400)).toHaveLength(1);
      expect(expected.codes).toContain(parsed.errors[0]?.code);
      expect(parsed.done).toBe(false);
      expect(parsed.framesAfterError).toBe(0);
      expect(parsed.malformed).toEqual([]);
      expect(parsed.unterminated).toBe(false);
      // What came before the fault arrived intact.
      expect(parsed.content.startsWith('Hello')).toBe(true);
    } else {
      const error = readErrorBody(answer.text);
      expect(error, answer.text.slice(0, 400)).toBeDefined();
      expect(expected.codes).toContain(error?.code);
      expect(answer.status).toBe(STATUS_OF[error?.code ?? '']);
      expect(answer.headers['x-svir-error-source']).toBe('upstream');
      // The upstream's own words and bytes stay out of the answer.
      expect(answer.text).not.toContain('<html>');
      expect(answer.text).not.toContain('not a stream');
    }

    // A redirect is never followed.
    expect(upstream.requests.some((seen) => seen.path.startsWith('/redirected'))).toBe(false);
    if (completeExchange(kind, phase)) {
      // The upstream answered a whole HTTP message: its connection may go back to the pool.
      // Released means closed, or idle and taken by the next request.
      await expectServing(stream);
      const reused = upstream.requests.slice(before + 1).some((later) => later.socket === record!.socket);
      expect(reused || record!.socket.closedAt !== undefined, 'the connection is closed or reused').toBe(true);
    } else {
      // Cut, stalled or unreadable: the upstream connection must be closed, by the fake or by svir.
      expect(await upstream.waitForSocketClose(record!.socket, CLOSE_BOUND_MS)).toBeTypeOf('number');
      await expectServing(stream);
    }
  });

  it.each([true, false])(
    'a server that stalls after [DONE] with long deadlines: the answer is whole, and svir lets the connection go (stream: %s)',
    async (stream) => {
      const { gate, open } = firstBytesGate();
      upstream.enqueue({ ...helloScript(), fault: { kind: 'stall', phase: 'after-done', waitFor: gate } });
      const before = upstream.requests.length;
      const answer = await chat(
        stream,
        (soFar) => {
          if (!stream || soFar.includes('data: [DONE]')) open();
        },
        'patient-model',
      );
      open();
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('Hello');
      const record = upstream.requests[before];
      // Far below the 30 s idle deadline of this backend: waiting for a body that will not
      // end would hold a socket (and a graceful shutdown) that long.
      expect(await upstream.waitForSocketClose(record!.socket, CLOSE_BOUND_MS)).toBeTypeOf('number');
    },
  );

  it('leaves no timer, socket or listener behind', async () => {
    await agent.close();
    await svir.close();
    await upstream.close();
    const left = await waitForResourcesBack(baseline);
    expect(left).toEqual({});
  });
});
