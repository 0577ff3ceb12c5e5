/**
 * A Responses chain across two svir programs sharing one real Redis: each turn goes to the
 * other replica, sent the moment the previous turn's `response.completed` event (or its
 * `stream: false` object) arrives, 100 turns, streamed and not by turns, each continuing the
 * last with `previous_response_id` and naming the last answer again with an `item_reference`.
 * Every turn is found, and the backend gets the whole conversation every time. GET, DELETE and
 * input_items answer from either replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvirProcess } from '../contract/harness/run-svir.js';
import type { RecordedRequest } from '../fakes/scripted-upstream.js';
import { startClusterRig, type ClusterRig } from './cluster-rig.js';

const MODEL = 'chain-model';
let rig: ClusterRig;
let replicas: SvirProcess[] = [];

/** The fake answers each turn with the number of user messages it was sent. */
function answerCount(recorded: RecordedRequest): string {
  const body = recorded.body as { messages?: { role: string }[] };
  const users = (body.messages ?? []).filter((message) => message.role === 'user').length;
  const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return chunk({ role: 'assistant', content: `seen ${users}` }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n';
}

beforeAll(async () => {
  rig = await startClusterRig(MODEL, (_req, res, recorded) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(answerCount(recorded));
  });
  replicas = await rig.startReplicas(2);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

interface Turn {
  id: string;
  /** The answer's message item id. */
  messageId: string;
  text: string;
}

/** Reads a stream until its response.completed event, and returns at once with it (the rest drains by itself). */
async function streamedTurn(url: string, body: Record<string, unknown>): Promise<Turn> {
  const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const read = await reader.read();
    if (read.done) throw new Error(`the stream ended without response.completed:\n${text}`);
    text += decoder.decode(read.value, { stream: true });
    const at = text.indexOf('event: response.completed\ndata: ');
    const end = at === -1 ? -1 : text.indexOf('\n\n', at);
    if (end === -1) continue;
    void reader.read().then(function drain(next): Promise<void> | undefined {
      return next.done ? undefined : reader.read().then(drain);
    });
    const data = JSON.parse(text.slice(text.indexOf('data: ', at) + 6, end)) as { response: Record<string, unknown> };
    return turnOf(data.response);
  }
}

async function foldedTurn(url: string, body: Record<string, unknown>): Promise<Turn> {
  const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return turnOf(JSON.parse(text) as Record<string, unknown>);
}

function turnOf(response: Record<string, unknown>): Turn {
  expect(response['status']).toBe('completed');
  expect(response['store']).toBe(true);
  const output = response['output'] as { id: string; type: string; content: { text: string }[] }[];
  const message = output.find((item) => item.type === 'message');
  if (message === undefined) throw new Error('no message');
  return { id: String(response['id']), messageId: message.id, text: message.content.map((part) => part.text).join('') };
}

describe('a Responses chain across two replicas', () => {
  it('100 turns, each on the other replica the moment the last one completed, streamed and not, with item references: every turn found', async () => {
    let last = await foldedTurn(replicas[0]?.url ?? '', { model: MODEL, input: 'q0' });
    expect(last.text).toBe('seen 1');
    for (let turn = 1; turn <= 100; turn++) {
      const url = replicas[turn % 2]?.url ?? '';
      const body = {
        model: MODEL,
        previous_response_id: last.id,
        input: [{ type: 'item_reference', id: last.messageId }, { role: 'user', content: `q${turn}` }],
      };
      last = turn % 4 < 2 ? await streamedTurn(url, body) : await foldedTurn(url, body);
      // q0 .. q<turn>: the whole conversation reached the backend.
      expect(last.text, `turn ${turn}`).toBe(`seen ${turn + 1}`);
    }
    const sent = rig.upstream.requestsTo('POST', '/v1/chat/completions').at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(
      Array.from({ length: 101 }, (_, i) => `q${i}`),
    );
  }, 120_000);

  it('GET, input_items and DELETE answer from either replica', async () => {
    const [a, b] = replicas.map((replica) => replica.url);
    const turn = await foldedTurn(a ?? '', { model: MODEL, input: 'hello' });
    const got = await fetch(`${b}/v1/responses/${turn.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: turn.id, status: 'completed' });
    const items = await fetch(`${b}/v1/responses/${turn.id}/input_items`);
    expect(await items.json()).toMatchObject({ object: 'list', data: [{ type: 'message', role: 'user' }] });
    expect((await fetch(`${b}/v1/responses/${turn.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${a}/v1/responses/${turn.id}`)).status).toBe(404);
  });
});
