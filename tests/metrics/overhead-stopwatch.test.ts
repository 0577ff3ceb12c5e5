import { describe, expect, it } from 'vitest';
import { createOverheadStopwatch } from '../../src/metrics/overhead-stopwatch.js';

describe('createOverheadStopwatch', () => {
  it('charges time to the state being left and counts only svir as overhead', () => {
    let clock = 1_000;
    const watch = createOverheadStopwatch(() => clock);
    clock += 2; // validation, routing
    watch.enter('queue');
    clock += 500;
    watch.enter('svir');
    clock += 1; // adapter
    watch.enter('upstream');
    clock += 3_000; // prompt processing
    watch.enter('svir');
    clock += 1; // normalize, encode
    watch.enter('client');
    clock += 40;
    watch.enter('svir');
    clock += 1;
    expect(watch.stop()).toEqual({ svir: 5, queue: 500, upstream: 3_000, client: 40 });
  });

  it('starts counting from the given start time and ignores switches after stop', () => {
    let clock = 10;
    const watch = createOverheadStopwatch(() => clock, 4);
    watch.enter('upstream');
    clock = 20;
    expect(watch.stop()).toEqual({ svir: 6, queue: 0, upstream: 10, client: 0 });
    clock = 100;
    watch.enter('svir');
    expect(watch.stop()).toEqual({ svir: 6, queue: 0, upstream: 10, client: 0 });
  });

  it('treats entering the current state as no switch', () => {
    let clock = 0;
    const watch = createOverheadStopwatch(() => clock);
    watch.enter('upstream');
    clock = 5;
    watch.enter('upstream');
    clock = 9;
    expect(watch.state).toBe('upstream');
    expect(watch.stop().upstream).toBe(9);
  });

  it("returns the clock's time it read, switch or not, for the caller's bookkeeping of the same moment", () => {
    let clock = 3;
    const watch = createOverheadStopwatch(() => clock);
    clock = 7;
    expect(watch.enter('upstream')).toBe(7);
    clock = 11;
    expect(watch.enter('upstream')).toBe(11);
    expect(watch.enter('svir')).toBe(11);
    expect(watch.stop()).toEqual({ svir: 4, queue: 0, upstream: 4, client: 0 });
  });
});
