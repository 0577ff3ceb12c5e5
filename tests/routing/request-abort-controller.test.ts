import { describe, expect, it, vi } from 'vitest';
import { RequestAbortController } from '../../src/request-abort-controller.js';

describe('RequestAbortController', () => {
  it('tells its watcher once, after the signal aborted and its listeners ran', () => {
    const controller = new RequestAbortController();
    const seen: string[] = [];
    controller.signal.addEventListener('abort', () => seen.push('listener'));
    const watcher = vi.fn(() => seen.push(`watcher: ${String(controller.signal.reason)}`));
    controller.watch(watcher);
    controller.abort('gone');
    controller.abort('again');
    expect(seen).toEqual(['listener', 'watcher: gone']);
    expect(watcher).toHaveBeenCalledTimes(1);
  });

  it('forgets a watcher that unwatched, and keeps one that another unwatch does not name', () => {
    const controller = new RequestAbortController();
    const left = vi.fn();
    const stays = vi.fn();
    controller.watch(left);
    controller.unwatch(left);
    controller.abort();
    expect(left).not.toHaveBeenCalled();

    const other = new RequestAbortController();
    other.watch(stays);
    other.unwatch(left);
    other.abort();
    expect(stays).toHaveBeenCalledTimes(1);
  });
});
