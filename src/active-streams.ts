/**
 * The upstream requests in flight, so that shutdown can end the ones still open when its grace
 * period runs out: each is aborted with a reason the route turns into a clean end (an error
 * event inside a stream, or an HTTP error before one).
 */
export interface ActiveStreams {
  /** Registers an abort; the returned function unregisters it. */
  add(abort: (reason: unknown) => void): () => void;
  abortAll(reason: unknown): void;
  readonly size: number;
}

export function createActiveStreams(): ActiveStreams {
  const aborts = new Set<(reason: unknown) => void>();
  return {
    add(abort) {
      aborts.add(abort);
      return () => aborts.delete(abort);
    },
    abortAll(reason) {
      for (const abort of [...aborts]) abort(reason);
    },
    get size() {
      return aborts.size;
    },
  };
}
