import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { createMetrics } from '../../src/metrics/create-metrics.js';
import { createRequestRecorder } from '../../src/metrics/request-recorder.js';
import { readMetric } from '../helpers/read-metric.js';
import { cleanChunkMaker } from '../helpers/clean-chunk-maker.js';

const { chunk } = cleanChunkMaker({ id: 'c', model: 'm' });

async function valueOf(metrics: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string>): Promise<number | undefined> {
  return readMetric((await metrics.render()).body, name, labels);
}

describe('createRequestRecorder', () => {
  it('records a streamed answer: request, time to first token, speed, queue wait and overhead', async () => {
    const metrics = createMetrics();
    let clock = 0;
    const recorder = createRequestRecorder(metrics, () => clock);
    recorder.setModel('fast');
    recorder.setBackend('lms');
    clock = 1; // validation and routing: 1 ms of svir
    recorder.stopwatch.enter('queue');
    clock = 201;
    recorder.queued(200);
    recorder.stopwatch.enter('svir');
    recorder.upstreamSent();
    recorder.stopwatch.enter('upstream');
    clock = 2_201; // 2 s prompt
    recorder.streamOpened();
    expect(await valueOf(metrics, 'svir_in_flight_streams', { backend: 'lms' })).toBe(1);
    recorder.stopwatch.enter('svir');
    recorder.chunks([chunk({ role: 'assistant' })]);
    for (let i = 0; i < 5; i += 1) {
      recorder.chunks([chunk({ content: `w${i}` })]); // tokens at 2 201, 2 301, ... 2 601
      recorder.stopwatch.enter('upstream');
      clock += 100;
      recorder.stopwatch.enter('svir');
    }
    recorder.chunks([chunk({}, 'stop')]);
    clock += 2; // 2 ms of svir writing [DONE]
    recorder.finish({ status: 200, finishReason: 'stop' });
    recorder.finish({ status: 500, finishReason: 'error' });

    expect(await valueOf(metrics, 'svir_requests_total', { backend: 'lms', model: 'fast', status: '200', finish_reason: 'stop' })).toBe(1);
    expect(await valueOf(metrics, 'svir_requests_total', { status: '500' })).toBeUndefined();
    expect(await valueOf(metrics, 'svir_in_flight_streams', { backend: 'lms' })).toBe(0);
    expect(await valueOf(metrics, 'svir_time_to_first_token_seconds_sum', { backend: 'lms', model: 'fast' })).toBeCloseTo(2, 9);
    // 5 tokens, 400 ms from the first to the last: 4 steps in 0.4 s.
    expect(await valueOf(metrics, 'svir_generation_tokens_per_second_sum', { backend: 'lms', model: 'fast' })).toBeCloseTo(10, 9);
    expect(await valueOf(metrics, 'svir_queue_wait_seconds_sum', { backend: 'lms' })).toBeCloseTo(0.2, 9);
    expect(await valueOf(metrics, 'svir_overhead_seconds_sum', { backend: 'lms' })).toBeCloseTo(0.003, 9);
  });

  it('counts upstream errors by code and a request that reached no backend under none', async () => {
    const metrics = createMetrics();
    const recorder = createRequestRecorder(metrics, () => 0);
    recorder.finish({ status: 404, finishReason: 'error' });
    expect(await valueOf(metrics, 'svir_requests_total', { backend: 'none', model: 'none', status: '404', finish_reason: 'error' })).toBe(1);

    const failing = createRequestRecorder(metrics, () => 0);
    failing.setBackend('vllm');
    failing.upstreamError(new SvirError('backend_unavailable', { backend: 'vllm' }));
    failing.setBackend('lms');
    failing.upstreamError(new SvirError('upstream_error'));
    expect(await valueOf(metrics, 'svir_upstream_errors_total', { backend: 'vllm', code: 'backend_unavailable' })).toBe(1);
    expect(await valueOf(metrics, 'svir_upstream_errors_total', { backend: 'lms', code: 'upstream_error' })).toBe(1);
  });

  it('measures a failover attempt on its own and moves the in-flight count with the backend', async () => {
    const metrics = createMetrics();
    let clock = 0;
    const recorder = createRequestRecorder(metrics, () => clock);
    recorder.setBackend('a');
    recorder.upstreamSent();
    recorder.streamOpened();
    clock = 50;
    recorder.setBackend('b');
    expect(await valueOf(metrics, 'svir_in_flight_streams', { backend: 'a' })).toBe(0);
    recorder.upstreamSent();
    recorder.streamOpened();
    clock = 80;
    recorder.chunks([chunk({ content: 'x' })]);
    expect(await valueOf(metrics, 'svir_in_flight_streams', { backend: 'b' })).toBe(1);
    recorder.finish({ status: 200, finishReason: 'stop' });
    expect(await valueOf(metrics, 'svir_time_to_first_token_seconds_sum', { backend: 'b' })).toBeCloseTo(0.03, 9);
    expect(await valueOf(metrics, 'svir_generation_tokens_per_second_count', { backend: 'b' })).toBeUndefined();
  });
});

describe('createMetrics', () => {
  it('reads queue lengths and backend states at scrape time and keeps registries apart', async () => {
    const one = createMetrics();
    const two = createMetrics();
    one.watch({
      queues: () => [{ backend: 'lms', active: 2, queued: 3 }],
      backends: () => [
        { name: 'lms', state: 'up' },
        { name: 'vllm', state: 'down' },
        { name: 'new', state: 'unknown' },
      ],
    });
    const { body, contentType } = await one.render();
    expect(contentType).toContain('text/plain');
    expect(body).toContain('svir_queue_length{backend="lms"} 3');
    expect(body).toContain('svir_queue_active{backend="lms"} 2');
    expect(body).toContain('svir_backend_up{backend="lms"} 1');
    expect(body).toContain('svir_backend_up{backend="vllm"} 0');
    expect(body).not.toContain('svir_backend_up{backend="new"}');
    one.requests.inc({ backend: 'lms', model: 'm', status: '200', finish_reason: 'stop' });
    expect((await two.render()).body).not.toContain('svir_requests_total{');
  });

  it('reports open streams as a prom-client gauge counted up and down would, backends in the order first seen, 0 once closed', async () => {
    const metrics = createMetrics();
    const registry = new Registry();
    const reference = new Gauge({ name: 'svir_in_flight_streams', help: 'Upstream streams open right now.', labelNames: ['backend'] as const, registers: [registry] });
    const steps: [string, 'opened' | 'closed'][] = [
      ['lms', 'opened'],
      ['vllm', 'opened'],
      ['lms', 'opened'],
      ['vllm', 'closed'],
      ['lms', 'closed'],
      ['llama', 'opened'],
    ];
    for (const [backend, step] of steps) {
      metrics.inFlightStreams[step](backend);
      if (step === 'opened') reference.inc({ backend });
      else reference.dec({ backend });
    }
    const lines = (text: string): string[] => text.split('\n').filter((line) => line.includes('svir_in_flight_streams'));
    expect(lines((await metrics.render()).body)).toEqual(lines(await registry.metrics()));
    expect(lines((await metrics.render()).body)).toContain('svir_in_flight_streams{backend="vllm"} 0');
  });

  it('times the chunks of a read at the time given (the read\'s), not at its own clock read', async () => {
    const metrics = createMetrics();
    let clock = 0;
    const recorder = createRequestRecorder(metrics, () => clock);
    recorder.setModel('fast');
    recorder.setBackend('lms');
    recorder.upstreamSent();
    clock = 9_999;
    recorder.chunks([chunk({ content: 'first' })], 500);
    recorder.chunks([chunk({ content: 'second' })], 600);
    recorder.finish({ status: 200, finishReason: 'stop' });
    expect(await valueOf(metrics, 'svir_time_to_first_token_seconds_sum', { backend: 'lms', model: 'fast' })).toBeCloseTo(0.5, 9);
    expect(await valueOf(metrics, 'svir_generation_tokens_per_second_sum', { backend: 'lms', model: 'fast' })).toBeCloseTo(10, 9);
  });
});
