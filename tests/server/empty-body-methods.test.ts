/**
 * A method that takes no body may say `content-type: application/json` and send nothing: the
 * API reference's own `curl -X DELETE .../v1/responses/{id}` does. That is no body, not a 400
 * "The request body is empty"; a POST with nothing in it still is.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sse } from '../fakes/scripted-upstream.js';
import { startSvir, type SvirUnderTest } from './start-svir.js';

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

/** One raw request (no fetch: it would not send a content-type and a body of nothing on DELETE as curl does). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    // Node frames no body on DELETE by itself: its length is given whenever there is one.
    const framed = body === undefined || 'transfer-encoding' in headers ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${url}${path}`, { method, headers: framed }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => (text += piece));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function storedResponse(url: string, upstream: SvirUnderTest['upstream']): Promise<string> {
  upstream.chat({
    kind: 'sse',
    pieces: [sse({ id: 'c1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'm1', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] }, '[DONE]')],
  });
  const created = await send(url, 'POST', '/v1/responses', { 'content-type': 'application/json' }, JSON.stringify({ model: 'm1', input: 'hello' }));
  expect(created.status).toBe(200);
  const id = (created.json as { id?: unknown }).id;
  if (typeof id !== 'string') throw new Error('no response id');
  return id;
}

describe('an empty JSON body on a method that takes none', () => {
  it.each([
    ['content-length: 0', { 'content-type': 'application/json', 'content-length': '0' }],
    ['chunked, nothing in it', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }],
    ['whitespace only', { 'content-type': 'application/json' }, '  \n'],
  ])('DELETE deletes the stored response (%s)', async (_name, headers, body?: string) => {
    svir = await startSvir();
    const id = await storedResponse(svir.url, svir.upstream);
    const deleted = await send(svir.url, 'DELETE', `/v1/responses/${id}`, headers, body);
    expect(deleted).toEqual({ status: 200, json: { id, object: 'response', deleted: true } });
    expect((await send(svir.url, 'GET', `/v1/responses/${id}`, {})).status).toBe(404);
  });

  it('GET with application/json and no body answers the stored response', async () => {
    svir = await startSvir();
    const id = await storedResponse(svir.url, svir.upstream);
    const got = await send(svir.url, 'GET', `/v1/responses/${id}`, { 'content-type': 'application/json', 'content-length': '0' });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ id, object: 'response' });
  });

  it('a POST with an empty body is still 400 invalid_json', async () => {
    svir = await startSvir();
    const answer = await send(svir.url, 'POST', '/v1/responses', { 'content-type': 'application/json', 'content-length': '0' });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: { code: 'invalid_json', message: 'The request body is empty.' } });
  });

  it('a DELETE with a body that is not JSON is still 400 invalid_json', async () => {
    svir = await startSvir();
    const id = await storedResponse(svir.url, svir.upstream);
    const answer = await send(svir.url, 'DELETE', `/v1/responses/${id}`, { 'content-type': 'application/json' }, '{nope');
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: { code: 'invalid_json' } });
    expect((await send(svir.url, 'GET', `/v1/responses/${id}`, {})).status).toBe(200);
  });
});
