import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/create-metrics.js';

describe('createMetrics: Node process metrics', () => {
  it('exports the process and event-loop metrics under svir_ when asked', async () => {
    const { body } = await createMetrics({ processMetrics: true }).render();
    for (const name of [
      'svir_process_cpu_user_seconds_total',
      'svir_process_resident_memory_bytes',
      'svir_nodejs_eventloop_lag_seconds',
      'svir_nodejs_eventloop_lag_p99_seconds',
      'svir_nodejs_heap_size_used_bytes',
    ]) {
      expect(body).toContain(`\n# TYPE ${name} `);
    }
  });

  it('exports none of them when not asked (the tests run many servers in one process)', async () => {
    const { body } = await createMetrics().render();
    expect(body).not.toContain('svir_process_');
    expect(body).not.toContain('svir_nodejs_');
    expect(body).toContain('# TYPE svir_requests_total counter');
  });
});
