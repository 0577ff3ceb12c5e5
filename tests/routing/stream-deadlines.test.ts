import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { createStreamDeadlines } from '../../src/timeouts/stream-deadlines.js';

const timeouts = { firstTokenMs: 1_000, idleMs: 200 };

describe('createStreamDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with a non-retryable 504 when no first event comes in time', () => {
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0 });
    vi.advanceTimersByTime(999);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.signal.aborted).toBe(true);
    const reason: unknown = deadlines.signal.reason;
    expect(reason).toBeInstanceOf(SvirError);
    expect(reason).toMatchObject({
      code: 'upstream_timeout',
      status: 504,
      backend: 'lms',
      retryable: false,
      message: expect.stringContaining('firstTokenMs'),
    });
    expect(deadlines.expired).toBe(reason);
  });

  it('switches to the idle deadline after the first event and restarts it on each event', () => {
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0 });
    vi.advanceTimersByTime(900);
    deadlines.event();
    expect(deadlines.phase).toBe('idle');
    // The first-token deadline no longer applies: 150 ms gaps, well past 1 000 ms in total.
    for (let i = 0; i < 10; i += 1) {
      vi.advanceTimersByTime(150);
      deadlines.event();
    }
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(200);
    expect(deadlines.signal.aborted).toBe(true);
    expect(deadlines.expired?.message).toContain('idleMs');
    expect(deadlines.expired?.retryable).toBe(false);
  });

  it('sends keepalives while the first token is awaited, and stops with it', () => {
    const onKeepalive = vi.fn();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 300, onKeepalive });
    vi.advanceTimersByTime(299);
    expect(onKeepalive).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onKeepalive).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(300);
    expect(onKeepalive).toHaveBeenCalledTimes(2);
    deadlines.event();
    vi.advanceTimersByTime(150);
    deadlines.event();
    vi.advanceTimersByTime(150);
    deadlines.event();
    expect(onKeepalive).toHaveBeenCalledTimes(2);
    deadlines.finish();
  });

  it('keeps sending keepalives up to the first-token deadline, which passes on time', () => {
    const onKeepalive = vi.fn();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 300, onKeepalive });
    vi.advanceTimersByTime(999);
    // At 300, 600 and 900 ms.
    expect(onKeepalive).toHaveBeenCalledTimes(3);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.message).toContain('firstTokenMs');
    expect(onKeepalive).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never sends a keepalive with keepaliveMs 0', () => {
    const onKeepalive = vi.fn();
    createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0, onKeepalive });
    vi.advanceTimersByTime(999);
    expect(onKeepalive).not.toHaveBeenCalled();
  });

  it('does not blame the backend while svir waits on its client', () => {
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0 });
    deadlines.event();
    deadlines.pause();
    vi.advanceTimersByTime(5_000);
    expect(deadlines.signal.aborted).toBe(false);
    deadlines.resume();
    vi.advanceTimersByTime(199);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.code).toBe('upstream_timeout');
  });

  it('clears every timer on finish', () => {
    const onKeepalive = vi.fn();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 100, onKeepalive });
    deadlines.finish();
    vi.advanceTimersByTime(10_000);
    expect(deadlines.signal.aborted).toBe(false);
    expect(onKeepalive).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("follows the request: its controller's abort by the client stops the deadlines, with the client's reason", () => {
    const client = new AbortController();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 100, controller: client });
    expect(deadlines.signal).toBe(client.signal);
    const reason = new Error('client left');
    client.abort(reason);
    expect(deadlines.signal.reason).toBe(reason);
    expect(deadlines.expired).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(deadlines.signal.reason).toBe(reason);
  });

  it("aborts the request's controller when a deadline passes, and stops listening to it", () => {
    const request = new AbortController();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0, controller: request });
    vi.advanceTimersByTime(1_000);
    expect(request.signal.aborted).toBe(true);
    expect(request.signal.reason).toBe(deadlines.expired);
    expect(deadlines.phase).toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts done on a controller already aborted (the client left while queued)', () => {
    const request = new AbortController();
    const reason = new Error('client left');
    request.abort(reason);
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 100, controller: request });
    expect(deadlines.phase).toBe('done');
    expect(deadlines.signal.reason).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });
});
