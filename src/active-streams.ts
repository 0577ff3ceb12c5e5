/**
 * The upstream requests in flight, so that shutdown can end the ones still open when its grace
 * period runs out: each is aborted with a reason the route turns into a clean end (an error
 * event inside a stream, or an HTTP error before one).
 *
 * The request's controller itself is kept (not a closure over it, nor a function to take it
 * out again): two closures fewer per request.
 */
export interface Abortable {
  abort(reason: unknown): void;
}

export interface ActiveStreams {
  add(request: Abortable): void;
  delete(request: Abortable): void;
  abortAll(reason: unknown): void;
  readonly size: number;
}

export function createActiveStreams(): ActiveStreams {
  const requests = new Set<Abortable>();
  return {
    add(request) {
      requests.add(request);
    },
    delete(request) {
      requests.delete(request);
    },
    abortAll(reason) {
      for (const request of [...requests]) request.abort(reason);
    },
    get size() {
      return requests.size;
    },
  };
}
