import { describe, expect, it, vi } from 'vitest';
import { RequestAbortController } from '../../src/abort/request-abort-controller.js';

describe('RequestAbortController (a signal read as an AbortSignal is)', () => {
  it('runs its listeners once, in the order added, on the first abort, with its reason', () => {
    const controller = new RequestAbortController();
    const { signal } = controller;
    const seen: string[] = [];
    signal.addEventListener('abort', () => seen.push(`first: ${String(signal.reason)}`));
    const second = (): number => seen.push('second');
    signal.addEventListener('abort', second, { once: true });
    signal.addEventListener('abort', second);
    expect(signal.aborted).toBe(false);
    controller.abort('gone');
    controller.abort('again');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
    expect(seen).toEqual(['first: gone', 'second']);
  });

  it('forgets a removed listener, and calls none added after the abort', () => {
    const controller = new RequestAbortController();
    const removed = vi.fn();
    const late = vi.fn();
    controller.signal.addEventListener('abort', removed);
    controller.signal.removeEventListener('abort', removed);
    controller.abort();
    controller.signal.addEventListener('abort', late);
    expect(removed).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it('gives the reason an AbortController gives when none is passed: an AbortError', () => {
    const ours = new RequestAbortController();
    const theirs = new AbortController();
    ours.abort();
    theirs.abort();
    expect(ours.signal.reason).toBeInstanceOf(DOMException);
    expect(ours.signal.reason).toMatchObject({ name: theirs.signal.reason.name, message: theirs.signal.reason.message });
  });
});
