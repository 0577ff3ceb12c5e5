/**
 * What the chat route tells the metrics about one request, in the order things happen. It keeps
 * the per-request state (labels, the speed meter, the overhead stopwatch, whether a stream is
 * open) so that the route makes one call per event and cannot count a request twice.
 */
import type { SvirError } from '../errors.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import type { SvirMetrics } from './create-metrics.js';
import { createSpeedMeter, type SpeedMeter, type SpeedResult } from './measure-speed.js';
import type { ReasoningMarkers } from '../normalize/think-tag-splitter.js';
import { createOverheadStopwatch, type OverheadStopwatch } from './overhead-stopwatch.js';

/** Label for a request that never reached a backend, or named no known model. */
export const NO_LABEL = 'none';

/** How the answer ended: the finish reason, `error` (an error answered it or ended its stream), `aborted` (the client left). */
export type RecordedFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'aborted';

export interface RequestRecorder {
  readonly stopwatch: OverheadStopwatch;
  /** The model as the client named it, once svir knows it (unknown names would explode the label set). */
  setModel(model: string): void;
  /** The backend serving the request; called again on failover. */
  setBackend(backend: string): void;
  /** A slot was granted after this wait. */
  queued(waitedMs: number): void;
  /** The request was sent upstream: time to first token counts from here. */
  upstreamSent(): void;
  /** The upstream answered with a stream (in-flight until finish). */
  streamOpened(): void;
  /** The upstream stream of this attempt is over (failover may open another). */
  streamClosed(): void;
  /**
   * Clean chunks were produced (those of one upstream read, at one time): `atMs`, the time the
   * read came as the stopwatch read it, or now.
   */
  chunks(chunks: readonly CleanChunk[], atMs?: number, reasoningMarkers?: readonly ReasoningMarkers[]): void;
  /** A backend failed, before or inside the stream (each failure counts once). */
  upstreamError(error: SvirError): void;
  /** The request is answered; only the first call counts. */
  finish(outcome: { status: number; finishReason: RecordedFinish }): void;
  /**
   * The current attempt's visible tokens so far and their rate (times by the recorder's clock);
   * undefined before its first chunks. Read by the live page only, never on the request's path.
   */
  progress(): SpeedResult | undefined;
}

export function createRequestRecorder(metrics: SvirMetrics, now: () => number, startedAtMs: number = now()): RequestRecorder {
  const stopwatch = createOverheadStopwatch(now, startedAtMs);
  let backend = NO_LABEL;
  let model = NO_LABEL;
  let sentAtMs: number | undefined;
  let firstTokenSeen = false;
  // Each attempt measures its own speed, from its first chunks.
  let speed: SpeedMeter | undefined;
  let streamOpen = false;
  let finished = false;
  // Made at the first upstream failure: nearly every request has none.
  let counted: WeakSet<SvirError> | undefined;

  function closeStream(): void {
    if (!streamOpen) return;
    streamOpen = false;
    metrics.inFlightStreams.closed(backend);
  }

  return {
    stopwatch,
    setModel(name) {
      model = name;
    },
    setBackend(name) {
      closeStream();
      backend = name;
    },
    queued(waitedMs) {
      metrics.queueWait.observe({ backend }, waitedMs / 1000);
    },
    upstreamSent() {
      // A new attempt (failover) measures its own first token and speed.
      sentAtMs = now();
      firstTokenSeen = false;
      // Its meter comes with its first chunks, after the request has left.
      speed = undefined;
    },
    streamOpened() {
      if (streamOpen) return;
      streamOpen = true;
      metrics.inFlightStreams.opened(backend);
    },
    streamClosed: closeStream,
    chunks(chunks, atMs, reasoningMarkers) {
      if (chunks.length === 0) return;
      // One clock read per upstream read: its chunks arrived together.
      const at = atMs ?? now();
      const meter = (speed ??= createSpeedMeter(reasoningMarkers));
      for (const chunk of chunks) {
        const visible = meter.observe(chunk, at);
        if (visible && !firstTokenSeen) {
          firstTokenSeen = true;
          if (sentAtMs !== undefined) metrics.timeToFirstToken.observe({ backend, model }, (at - sentAtMs) / 1000);
        }
      }
    },
    upstreamError(error) {
      // The same failure is often seen twice (as a stream step, then thrown to the route).
      counted ??= new WeakSet();
      if (counted.has(error)) return;
      counted.add(error);
      metrics.upstreamErrors.inc({ backend: error.backend ?? backend, code: error.code });
    },
    finish({ status, finishReason }) {
      if (finished) return;
      finished = true;
      closeStream();
      const totals = stopwatch.stop();
      metrics.requests.inc({ backend, model, status: String(status), finish_reason: finishReason });
      const rate = speed?.result().tokensPerSecond;
      if (rate !== undefined) metrics.generationSpeed.observe({ backend, model }, rate);
      metrics.overhead.observe({ backend }, totals.svir / 1000);
    },
    progress: () => speed?.result(),
  };
}
