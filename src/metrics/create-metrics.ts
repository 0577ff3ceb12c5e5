/**
 * svir's Prometheus metrics. Each server instance owns its own registry (never prom-client's
 * global one), so that two servers in one process, as in the tests, count apart.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface QueueSnapshotRow {
  backend: string;
  active: number;
  queued: number;
}

export interface BackendStateRow {
  name: string;
  /** `unknown`: not asked yet (no sample). */
  state: 'up' | 'down' | 'unknown';
}

/** Replicas sharing a Redis (README "Several replicas"), at scrape time. */
export interface ClusterSnapshot {
  up: boolean;
  /** The last probe's round trip (ms); undefined before the first answer. */
  latencyMs: number | undefined;
  /** Live replicas as Redis last counted them. */
  replicas: number | undefined;
  /** Per backend: shared slots this replica holds, its requests waiting for one. */
  slots: readonly { backend: string; held: number; waiting: number }[];
}

/** What the server's live state looks like at scrape time. */
export interface MetricSources {
  queues(): readonly QueueSnapshotRow[];
  backends(): readonly BackendStateRow[];
}

/**
 * The open upstream streams per backend, counted in a plain map and read into their gauge when
 * /metrics is scraped: a gauge's inc and dec each check and hash their labels, twice per request,
 * for a value only a scrape reads.
 */
export interface InFlightStreams {
  opened(backend: string): void;
  closed(backend: string): void;
}

export interface SvirMetrics {
  readonly registry: Registry;
  /** Every answered request: `status` is the HTTP status sent, `finish_reason` how the answer ended. */
  readonly requests: Counter<'backend' | 'model' | 'status' | 'finish_reason'>;
  /** From the upstream request being sent to the first visible token. */
  readonly timeToFirstToken: Histogram<'backend' | 'model'>;
  /** Tokens per second from the first visible token to the last (measure-speed.ts). */
  readonly generationSpeed: Histogram<'backend' | 'model'>;
  readonly upstreamErrors: Counter<'backend' | 'code'>;
  readonly queueWait: Histogram<'backend'>;
  /** Upstream streams open right now (svir_in_flight_streams). */
  readonly inFlightStreams: InFlightStreams;
  /** Time spent in svir itself per request (overhead-stopwatch.ts). */
  readonly overhead: Histogram<'backend'>;
  /** Where queue lengths and backend states are read at scrape time. */
  watch(sources: MetricSources): void;
  /** Where the cluster's state is read at scrape time (with `cluster.redis` only). */
  watchCluster(source: () => ClusterSnapshot): void;
  /** The text a scraper reads, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * How often Node's process metrics sample the event loop's delay. prom-client's default (10 ms)
 * wakes an idle svir some 190 times a second: 0.6% of a core with no request at all, most of
 * svir's idle CPU, paid on every workstation and laptop that keeps it running. Every 100 ms
 * still sees any stall long enough to matter to a stream, and costs a tenth of that.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export interface CreateMetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event loop lag). Off in tests. */
  processMetrics?: boolean;
}

export function createMetrics(options: CreateMetricsOptions = {}): SvirMetrics {
  const registry = new Registry();
  if (options.processMetrics === true) {
    collectDefaultMetrics({ register: registry, prefix: 'svir_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  let sources: MetricSources = { queues: () => [], backends: () => [] };
  let clusterSource: (() => ClusterSnapshot) | undefined;

  const requests = new Counter({
    name: 'svir_requests_total',
    help: 'Chat requests answered, by backend, model, HTTP status and finish reason (error: an error answered the request or ended its stream; aborted: the client left).',
    labelNames: ['backend', 'model', 'status', 'finish_reason'] as const,
    registers: [registry],
  });
  const timeToFirstToken = new Histogram({
    name: 'svir_time_to_first_token_seconds',
    help: 'From sending the request upstream to the first visible token (reasoning, text, tool call or refusal).',
    labelNames: ['backend', 'model'] as const,
    // Prompt processing on a workstation runs from milliseconds to minutes.
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const generationSpeed = new Histogram({
    name: 'svir_generation_tokens_per_second',
    help: 'Generation speed from the first visible token to the last; absent for one token or a window under 50 ms.',
    labelNames: ['backend', 'model'] as const,
    buckets: [1, 2, 5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 500],
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: 'svir_upstream_errors_total',
    help: 'Failures of a backend (before or inside the stream), by svir error code.',
    labelNames: ['backend', 'code'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'svir_queue_length',
    help: 'Requests waiting for a slot of the backend (maxConcurrent).',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const row of sources.queues()) this.set({ backend: row.backend }, row.queued);
    },
  });
  new Gauge({
    name: 'svir_queue_active',
    help: 'Requests holding one of the backend slots.',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const row of sources.queues()) this.set({ backend: row.backend }, row.active);
    },
  });
  const queueWait = new Histogram({
    name: 'svir_queue_wait_seconds',
    help: 'How long admitted requests waited for a slot.',
    labelNames: ['backend'] as const,
    buckets: [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  // A backend's count stays in the map at 0 once its streams closed, as the gauge's value did.
  const openStreams = new Map<string, number>();
  const inFlightStreams: InFlightStreams = {
    opened(backend) {
      openStreams.set(backend, (openStreams.get(backend) ?? 0) + 1);
    },
    closed(backend) {
      openStreams.set(backend, (openStreams.get(backend) ?? 0) - 1);
    },
  };
  new Gauge({
    name: 'svir_in_flight_streams',
    help: 'Upstream streams open right now.',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [backend, open] of openStreams) this.set({ backend }, open);
    },
  });
  const overhead = new Histogram({
    name: 'svir_overhead_seconds',
    help: 'Time per request spent in svir itself: wall time minus waits on the queue, the upstream and the client (includes event-loop time shared with other requests).',
    labelNames: ['backend'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  new Gauge({
    name: 'svir_backend_up',
    help: '1 when the last contact with the backend succeeded, 0 when it failed (absent before the first).',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const row of sources.backends()) {
        if (row.state !== 'unknown') this.set({ backend: row.name }, row.state === 'up' ? 1 : 0);
      }
    },
  });

  new Gauge({
    name: 'svir_redis_up',
    help: '1 when the shared Redis answers, 0 when it does not (only with cluster.redis).',
    registers: [registry],
    collect() {
      this.reset();
      const cluster = clusterSource?.();
      if (cluster !== undefined) this.set(cluster.up ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svir_redis_latency_seconds',
    help: "The last PING's round trip to the shared Redis (only with cluster.redis, once it answered).",
    registers: [registry],
    collect() {
      this.reset();
      const latency = clusterSource?.().latencyMs;
      if (latency !== undefined) this.set(latency / 1000);
    },
  });
  new Gauge({
    name: 'svir_cluster_replicas',
    help: 'Live replicas as the shared Redis last counted them (only with cluster.redis).',
    registers: [registry],
    collect() {
      this.reset();
      const replicas = clusterSource?.().replicas;
      if (replicas !== undefined) this.set(replicas);
    },
  });
  new Gauge({
    name: 'svir_shared_slots_held',
    help: "Slots of the backend's shared maxConcurrent this replica holds (only with cluster.redis).",
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const row of clusterSource?.().slots ?? []) this.set({ backend: row.backend }, row.held);
    },
  });
  new Gauge({
    name: 'svir_shared_slots_waiting',
    help: "Requests of this replica waiting for a slot of the backend's shared maxConcurrent (only with cluster.redis).",
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const row of clusterSource?.().slots ?? []) this.set({ backend: row.backend }, row.waiting);
    },
  });

  return {
    registry,
    requests,
    timeToFirstToken,
    generationSpeed,
    upstreamErrors,
    queueWait,
    inFlightStreams,
    overhead,
    watch(next) {
      sources = next;
    },
    watchCluster(source) {
      clusterSource = source;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
