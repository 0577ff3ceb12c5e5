/**
 * What svir's request path reads of an abort signal: whether and why it aborted, and a listener
 * for when it does. An AbortSignal is one; so is the routed request's own signal
 * (request-abort-controller.ts), which is not an EventTarget: making an AbortSignal and adding
 * a listener to it cost about 5 µs per request (micro-benchmark, one core), for an abort that
 * almost never comes.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
