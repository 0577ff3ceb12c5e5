/**
 * The part of autocannon 9's programmatic API the benchmarks use (the package ships no types).
 * Field names follow autocannon's lib/aggregateResult.js.
 */
declare module 'autocannon' {
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Counts a response as a mismatch when this returns false. */
    verifyBody?: (body: string) => boolean;
  }

  interface Percentiles {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    total?: number;
  }

  interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    latency: Percentiles & { totalCount: number };
    requests: Percentiles & { total: number; sent: number };
    throughput: Percentiles;
  }

  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
  export type { AutocannonOptions, AutocannonResult, Percentiles };
}
