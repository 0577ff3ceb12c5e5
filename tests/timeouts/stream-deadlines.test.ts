import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { RequestAbortController } from '../../src/abort/request-abort-controller.js';
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
    const client = new RequestAbortController();
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
    const request = new RequestAbortController();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0, controller: request });
    vi.advanceTimersByTime(1_000);
    expect(request.signal.aborted).toBe(true);
    expect(request.signal.reason).toBe(deadlines.expired);
    expect(deadlines.phase).toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts done on a controller already aborted (the client left while queued)', () => {
    const request = new RequestAbortController();
    const reason = new Error('client left');
    request.abort(reason);
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 100, controller: request });
    expect(deadlines.phase).toBe('done');
    expect(deadlines.signal.reason).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('createStreamDeadlines: one timer, set lazily', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps one timer however many events, pauses and resumes come, and the idle deadline still passes on time', () => {
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 300, onKeepalive: () => undefined });
    expect(vi.getTimerCount()).toBe(1);
    for (let i = 0; i < 20; i += 1) {
      vi.advanceTimersByTime(50);
      deadlines.event();
      deadlines.pause();
      deadlines.resume();
      expect(vi.getTimerCount()).toBe(1);
    }
    // The last event at 1 000 ms: idle until 1 200, whatever the timer was first set for.
    vi.advanceTimersByTime(199);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.message).toContain('idleMs');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends no keepalive once the first event came, though the timer set for one still fires', () => {
    const onKeepalive = vi.fn();
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts: { firstTokenMs: 1_000, idleMs: 2_000 }, keepaliveMs: 300, onKeepalive });
    vi.advanceTimersByTime(100);
    deadlines.event();
    vi.advanceTimersByTime(1_999);
    expect(onKeepalive).not.toHaveBeenCalled();
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.message).toContain('idleMs');
  });

  it('sets the timer again for an idle deadline shorter than the first-token wait', () => {
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts: { firstTokenMs: 60_000, idleMs: 100 }, keepaliveMs: 0 });
    deadlines.event();
    vi.advanceTimersByTime(99);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.message).toContain('idleMs');
  });

  it('stays quiet while paused past the idle deadline, and counts it afresh from the resume', () => {
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0 });
    deadlines.event();
    vi.advanceTimersByTime(100);
    deadlines.pause();
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    deadlines.resume();
    vi.advanceTimersByTime(150);
    deadlines.event();
    vi.advanceTimersByTime(199);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.code).toBe('upstream_timeout');
  });

  it("hands the controller from one attempt's deadlines to the next: an abort stops the deadlines in force", () => {
    const request = new RequestAbortController();
    const first = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0, controller: request });
    first.finish();
    const second = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 0, controller: request });
    request.abort(new Error('client left'));
    expect(first.phase).toBe('done');
    expect(second.phase).toBe('done');
    expect(second.expired).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('counts from the time it is given when made later (the route makes them once the request left)', () => {
    const onKeepalive = vi.fn();
    const startedAt = performance.now();
    vi.advanceTimersByTime(40);
    const deadlines = createStreamDeadlines({ backend: 'lms', timeouts, keepaliveMs: 300, onKeepalive, startedAt });
    vi.advanceTimersByTime(259);
    expect(onKeepalive).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onKeepalive).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(699);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.expired?.message).toContain('firstTokenMs');
  });
});
