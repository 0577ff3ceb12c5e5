/**
 * GET /metrics after a known sequence of requests: each counter and histogram count is what the
 * sequence implies. Durations are not asserted (no timed assertions), only that they were taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, type ScriptedResponse } from '../fakes/scripted-upstream.js';
import { buildChatEvents } from '../faults/chat-events.js';
import { readMetric } from '../helpers/read-metric.js';
import { answer, chatBody, closedPortUrl, post, startFleet, until, type Fleet } from './helpers/start-fleet.js';

function scripted(spec: Parameters<typeof buildChatEvents>[0], tail: 'done' | 'hang' = 'done'): ScriptedResponse {
  const pieces = buildChatEvents(spec).map((event) => sse(event));
  if (tail === 'done') return { kind: 'sse', pieces: [...pieces, sse('[DONE]')] };
  return { kind: 'sse', pieces: [...pieces.slice(0, 2), { waitFor: new Promise(() => undefined) }], finish: 'hang' };
}

let fleet: Fleet;
let text = '';
const statuses: number[] = [];

beforeAll(async () => {
  const down = await closedPortUrl();
  fleet = await startFleet({
    backends: [
      { name: 'a', listed: ['ma'] },
      { name: 'b', listed: ['mb'] },
      { name: 'c1', url: down.url, extra: { models: ['mc'] } },
      { name: 'c2', extra: { models: ['mc'] } },
      { name: 'd', listed: ['md'], extra: { timeouts: { idleMs: 60 } } },
    ],
  });
  fleet.upstream('a').chat(
    // 3 visible tokens, at least 150 ms apart: a rate. (30 ms was too close on a loaded machine:
    // svir's event loop, busy elsewhere, read all three in one read, which spans no time.)
    answer(['x', 'y', 'z'], { between: { delayMs: 150 } }),
    // One token: no rate.
    answer(['one']),
    scripted({ content: ['cut'], finish: 'length' }),
  );
  fleet.upstream('b').chat({
    kind: 'body',
    status: 400,
    body: { error: { message: "This model's maximum context length is 4096 tokens.", code: 'context_length_exceeded' } },
  });
  fleet.upstream('c2').chat(answer(['via c2']));
  fleet.upstream('d').chat(scripted({ content: ['then nothing'] }, 'hang'));

  const sequence: [string, boolean][] = [
    ['ma', true],
    ['ma', false],
    ['ma', true],
    ['nope', true],
    ['mb', false],
    ['mc', true],
    ['md', true],
  ];
  for (const [model, stream] of sequence) statuses.push((await post(fleet.url, chatBody(model, { stream }))).status);
  const response = await fetch(`${fleet.url}/metrics`);
  expect(response.headers.get('content-type')).toContain('text/plain');
  text = await response.text();
});
afterAll(async () => {
  await fleet.close();
});

describe('GET /metrics after a known sequence', () => {
  it('answered the sequence as expected', () => {
    expect(statuses).toEqual([200, 200, 200, 404, 400, 200, 200]);
  });

  it('counts requests by backend, model, status and finish reason', () => {
    const requests = (labels: Record<string, string>) => readMetric(text, 'svir_requests_total', labels);
    expect(requests({ backend: 'a', model: 'ma', status: '200', finish_reason: 'stop' })).toBe(2);
    expect(requests({ backend: 'a', model: 'ma', status: '200', finish_reason: 'length' })).toBe(1);
    expect(requests({ backend: 'none', model: 'none', status: '404', finish_reason: 'error' })).toBe(1);
    expect(requests({ backend: 'b', model: 'mb', status: '400', finish_reason: 'error' })).toBe(1);
    expect(requests({ backend: 'c2', model: 'mc', status: '200', finish_reason: 'stop' })).toBe(1);
    expect(requests({ backend: 'c1' })).toBeUndefined();
    expect(requests({ backend: 'd', model: 'md', status: '200', finish_reason: 'error' })).toBe(1);
    expect(requests({})).toBe(7);
  });

  it('counts upstream errors by backend and code', () => {
    const errors = (labels: Record<string, string>) => readMetric(text, 'svir_upstream_errors_total', labels);
    expect(errors({ backend: 'b', code: 'context_length_exceeded' })).toBe(1);
    expect(errors({ backend: 'c1', code: 'backend_unavailable' })).toBe(1);
    expect(errors({ backend: 'd', code: 'upstream_timeout' })).toBe(1);
    expect(errors({})).toBe(3);
  });

  it('measures time to first token for every answer that had one, and a speed only where honest', () => {
    expect(readMetric(text, 'svir_time_to_first_token_seconds_count', { backend: 'a', model: 'ma' })).toBe(3);
    expect(readMetric(text, 'svir_time_to_first_token_seconds_count', { backend: 'c2', model: 'mc' })).toBe(1);
    expect(readMetric(text, 'svir_time_to_first_token_seconds_count', { backend: 'd', model: 'md' })).toBe(1);
    expect(readMetric(text, 'svir_time_to_first_token_seconds_count', { backend: 'b' })).toBeUndefined();
    // Only the three-token answer spans 50 ms or more; single tokens give no rate.
    expect(readMetric(text, 'svir_generation_tokens_per_second_count', {})).toBe(1);
    expect(readMetric(text, 'svir_generation_tokens_per_second_count', { backend: 'a', model: 'ma' })).toBe(1);
    expect(readMetric(text, 'svir_generation_tokens_per_second_sum', { backend: 'a' })).toBeGreaterThan(0);
  });

  it('shows queues empty, no stream in flight, each wait and each request overhead taken', () => {
    expect(readMetric(text, 'svir_queue_length', {})).toBe(0);
    expect(readMetric(text, 'svir_queue_active', {})).toBe(0);
    expect(readMetric(text, 'svir_in_flight_streams', {})).toBe(0);
    // Every attempt that reached a backend took a slot (c1 too, before it failed).
    expect(readMetric(text, 'svir_queue_wait_seconds_count', { backend: 'a' })).toBe(3);
    expect(readMetric(text, 'svir_queue_wait_seconds_count', {})).toBe(7);
    expect(readMetric(text, 'svir_overhead_seconds_count', {})).toBe(7);
    expect(readMetric(text, 'svir_overhead_seconds_sum', {})).toBeGreaterThan(0);
  });

  it('shows which backends answered', () => {
    expect(readMetric(text, 'svir_backend_up', { backend: 'a' })).toBe(1);
    expect(readMetric(text, 'svir_backend_up', { backend: 'c1' })).toBe(0);
    expect(readMetric(text, 'svir_backend_up', { backend: 'c2' })).toBe(1);
  });
});

describe('a client that leaves mid-stream', () => {
  it('is counted as aborted, and its stream leaves the in-flight gauge', async () => {
    const own = await startFleet({ backends: [{ name: 'a', listed: ['ma'] }] });
    try {
      const events = buildChatEvents({ content: ['first words'] });
      own.upstream('a').chat({
        kind: 'sse',
        pieces: [sse(events[0] ?? ''), sse(events[1] ?? ''), { waitFor: new Promise(() => undefined) }],
        finish: 'hang',
      });
      const client = new AbortController();
      const response = await fetch(`${own.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody('ma', { stream: true })),
        signal: client.signal,
      });
      const reader = response.body?.getReader();
      let seen = '';
      while (reader !== undefined && !seen.includes('first words')) {
        const read = await reader.read();
        if (read.done) break;
        seen += new TextDecoder().decode(read.value);
      }
      const scrape = async () => (await (await fetch(`${own.url}/metrics`)).text());
      expect(readMetric(await scrape(), 'svir_in_flight_streams', { backend: 'a' })).toBe(1);
      client.abort();
      await until(async () => readMetric(await scrape(), 'svir_requests_total', { finish_reason: 'aborted' }) === 1, 'the aborted count');
      const after = await scrape();
      expect(readMetric(after, 'svir_requests_total', { backend: 'a', model: 'ma', status: '200', finish_reason: 'aborted' })).toBe(1);
      expect(readMetric(after, 'svir_in_flight_streams', { backend: 'a' })).toBe(0);
      expect(readMetric(after, 'svir_queue_active', { backend: 'a' })).toBe(0);
    } finally {
      await own.close();
    }
  });
});
