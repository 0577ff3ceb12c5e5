/**
 * The feed's own bookkeeping, with fake readers: one timer and one subscription while a reader
 * is connected and none otherwise (no cost when nobody watches), every reader gets each
 * finished request, and a reader that does not keep up is disconnected.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActiveStreams } from '../../src/lifecycle/active-streams.js';
import { createMonitor, type Monitor } from '../../src/monitor/create-monitor.js';
import { createEventFeed } from '../../src/monitor/event-feed.js';
import type { LiveStateSources } from '../../src/monitor/live-state.js';
import type { ModelRegistry } from '../../src/router/create-model-registry.js';
import { createBackendQueues } from '../../src/queue/backend-queues.js';

class FakeReader extends EventEmitter {
  written: string[] = [];
  writableLength = 0;
  destroyed = false;
  ended = false;
  status: number | undefined;
  writeHead(status: number): this {
    this.status = status;
    return this;
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): this {
    this.ended = true;
    this.emit('close');
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }
  events(): string[] {
    return this.written.map((text) => /^event: (\w+)/.exec(text)?.[1] ?? '?');
  }
}

const registry: Pick<ModelRegistry, 'status' | 'backends'> = { status: () => [], backends: () => [] };

function sources(monitor: Monitor): LiveStateSources {
  return {
    registry: () => registry,
    queues: createBackendQueues([]),
    streams: createActiveStreams(),
    monitor,
    now: () => 1_000_000,
    clock: () => 0,
  };
}

const finished = { route: 'chat', startedAt: 1, line: { reqId: 'r1', method: 'POST', path: '/v1/chat/completions', status: 200, durationMs: 5 } };

afterEach(() => {
  vi.useRealTimers();
});

describe('the live feed', () => {
  it('runs a timer and a subscription only while a reader is connected', () => {
    vi.useFakeTimers();
    const monitor = createMonitor();
    const subscribe = vi.spyOn(monitor, 'subscribe');
    const feed = createEventFeed(sources(monitor), 1_000);
    expect(vi.getTimerCount()).toBe(0);
    const a = new FakeReader();
    const b = new FakeReader();
    feed.open(a, {});
    feed.open(b, {});
    expect(a.status).toBe(200);
    expect(vi.getTimerCount()).toBe(1);
    expect(subscribe).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(2_000);
    expect(a.events()).toEqual(['state', 'live', 'live']);
    monitor.finished(finished);
    expect(a.events().at(-1)).toBe('request');
    expect(b.events().at(-1)).toBe('request');
    a.emit('close');
    expect(vi.getTimerCount()).toBe(1);
    b.emit('close');
    expect(feed.readers).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    // Nobody subscribed: a finished request reaches no reader.
    const count = b.written.length;
    monitor.finished(finished);
    expect(b.written.length).toBe(count);
  });

  it('disconnects a reader that does not keep up, and keeps the others', () => {
    vi.useFakeTimers();
    const monitor = createMonitor();
    const feed = createEventFeed(sources(monitor), 1_000);
    const slow = new FakeReader();
    const fast = new FakeReader();
    feed.open(slow, {});
    feed.open(fast, {});
    slow.writableLength = 2 << 20;
    monitor.finished(finished);
    expect(slow.destroyed).toBe(true);
    expect(fast.events().at(-1)).toBe('request');
    expect(feed.readers).toBe(1);
  });

  it('ends every reader when the server closes', () => {
    vi.useFakeTimers();
    const feed = createEventFeed(sources(createMonitor()), 1_000);
    const a = new FakeReader();
    feed.open(a, {});
    feed.closeAll();
    expect(a.ended).toBe(true);
    expect(feed.readers).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
