/**
 * The soak's leak verdict: memory sampled over the run, the mean of the last quarter of the
 * samples against the mean of the first quarter. Heap after a forced GC is the leak signal (what
 * survives collection); RSS is reported beside it, as the allocator keeps pages it freed.
 */

export interface MemorySample {
  /** Seconds since the measured part of the run began. */
  atS: number;
  heapUsedBytes: number;
  rssBytes: number;
  externalBytes: number;
}

export interface MemoryTrend {
  samples: number;
  firstQuarterHeapMean: number;
  lastQuarterHeapMean: number;
  /** lastQuarter / firstQuarter - 1: +0.04 is 4 % growth. */
  heapGrowth: number;
  firstQuarterRssMean: number;
  lastQuarterRssMean: number;
  rssGrowth: number;
  /** The last quarter's heap is within `tolerance` above the first quarter's. */
  withinTolerance: boolean;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function memoryTrend(samples: readonly MemorySample[], tolerance = 0.1): MemoryTrend | undefined {
  // Fewer than 4 samples has no quarters to compare.
  if (samples.length < 4) return undefined;
  const quarter = Math.floor(samples.length / 4);
  const first = samples.slice(0, quarter);
  const last = samples.slice(samples.length - quarter);
  const firstHeap = mean(first.map((sample) => sample.heapUsedBytes));
  const lastHeap = mean(last.map((sample) => sample.heapUsedBytes));
  const firstRss = mean(first.map((sample) => sample.rssBytes));
  const lastRss = mean(last.map((sample) => sample.rssBytes));
  const heapGrowth = lastHeap / firstHeap - 1;
  return {
    samples: samples.length,
    firstQuarterHeapMean: firstHeap,
    lastQuarterHeapMean: lastHeap,
    heapGrowth,
    firstQuarterRssMean: firstRss,
    lastQuarterRssMean: lastRss,
    rssGrowth: lastRss / firstRss - 1,
    withinTolerance: heapGrowth <= tolerance,
  };
}
