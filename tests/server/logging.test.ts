import { afterEach, describe, expect, it } from 'vitest';
import { sse } from '../fakes/scripted-upstream.js';
import { HELLO, postChat, startSvir, type SvirUnderTest } from './start-svir.js';

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

describe('the request log line', () => {
  it('is one line per request with backend, model, status, first token, duration, finish and tokens', async () => {
    svir = await startSvir();
    svir.upstream.chat({
      kind: 'sse',
      pieces: [
        sse(
          { id: 'u', model: 'm1', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] },
          { id: 'u', model: 'm1', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
          { id: 'u', model: 'm1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, completion_tokens_details: { reasoning_tokens: 0 } } },
          '[DONE]',
        ),
      ],
    });
    await postChat(svir.url, { ...HELLO, stream: true });
    await postChat(svir.url, HELLO);
    await fetch(`${svir.url}/healthz`);
    await waitFor(() => svir?.requestLines().length === 3);
    const [streamed, folded, health] = svir.requestLines();
    for (const line of [streamed, folded]) {
      expect(line).toMatchObject({
        msg: 'request',
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
        backend: 'fake',
        model: 'm1',
        finishReason: 'length',
        tokens: { prompt: 3, completion: 1, total: 4, reasoning: 0 },
      });
      expect(typeof line?.ttftMs).toBe('number');
      expect(typeof line?.durationMs).toBe('number');
      expect(typeof line?.reqId).toBe('string');
      // The fields in the order they are written: pino's own, then the request, then what svir knows.
      expect(Object.keys(line ?? {})).toEqual(['level', 'time', 'name', 'reqId', 'method', 'path', 'status', 'durationMs', 'model', 'backend', 'stream', 'ttftMs', 'finishReason', 'tokens', 'msg']);
    }
    expect(streamed?.stream).toBe(true);
    expect(folded?.stream).toBe(false);
    expect(health).toMatchObject({ path: '/healthz', status: 200 });
    // Fastify's own per-request lines are off: exactly one line per request.
    expect(svir.logs().filter((line) => 'reqId' in line)).toHaveLength(3);
  });

  it.each([true, false])('never writes a key: not the client\'s, svir\'s, the backend\'s, or one a server echoes (censor %s)', async (censorLog) => {
    const backendKey = 'backend-0123456789';
    const svirKey = 'svir-own-key-abcdef';
    svir = await startSvir({ backend: { apiKey: backendKey }, env: { SVIR_API_KEYS: svirKey }, censorLog });
    svir.upstream.chat({ kind: 'body', status: 400, body: { error: { message: `Incorrect API key provided: ${backendKey}` } } });
    const refused = await postChat(svir.url, HELLO, { authorization: `Bearer ${svirKey}` });
    expect(refused.status).toBe(400);
    expect(refused.text).not.toContain(backendKey);
    await postChat(svir.url, HELLO, { authorization: 'Bearer wrong-client-key-999' });
    svir.upstream.chat({ kind: 'body', status: 401, body: { error: { message: `bad key ${backendKey}` } } });
    const auth = await postChat(svir.url, HELLO, { authorization: `Bearer ${svirKey}` });
    expect(auth.status).toBe(502);
    await waitFor(() => svir?.requestLines().length === 3);
    const text = svir.logText();
    expect(text).not.toContain(backendKey);
    expect(text).not.toContain(svirKey);
    expect(text).not.toContain('wrong-client-key-999');
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
