import { describe, expect, it, vi } from 'vitest';
import { createBalancer } from '../../src/balance/create-balancer.js';
import { runWithFailover } from '../../src/balance/run-with-failover.js';
import { shouldFailover } from '../../src/balance/should-failover.js';
import { SvirError } from '../../src/errors.js';

interface Fake {
  name: string;
  down: boolean;
  load: number;
}
const facts = (c: Fake) => ({ down: c.down, load: c.load });
const names = (list: Fake[]) => list.map((c) => c.name);

describe('createBalancer', () => {
  it('takes turns between equally loaded backends, per model', () => {
    const balancer = createBalancer();
    const pair: Fake[] = [
      { name: 'a', down: false, load: 0 },
      { name: 'b', down: false, load: 0 },
    ];
    expect(names(balancer.order('m', pair, facts))).toEqual(['a', 'b']);
    expect(names(balancer.order('m', pair, facts))).toEqual(['b', 'a']);
    expect(names(balancer.order('m', pair, facts))).toEqual(['a', 'b']);
    expect(names(balancer.order('other', pair, facts))).toEqual(['a', 'b']);
  });

  it('prefers the least loaded, whatever the turn', () => {
    const balancer = createBalancer();
    const list: Fake[] = [
      { name: 'a', down: false, load: 3 },
      { name: 'b', down: false, load: 1 },
      { name: 'c', down: false, load: 2 },
    ];
    for (let i = 0; i < 4; i += 1) expect(names(balancer.order('m', list, facts))).toEqual(['b', 'c', 'a']);
  });

  it('puts a backend known to be down last, but keeps it as a last resort', () => {
    const balancer = createBalancer();
    const list: Fake[] = [
      { name: 'a', down: true, load: 0 },
      { name: 'b', down: false, load: 5 },
    ];
    expect(names(balancer.order('m', list, facts))).toEqual(['b', 'a']);
    expect(names(balancer.order('m', list, facts))).toEqual(['b', 'a']);
  });

  it('returns a single candidate as it is and starts over after reset', () => {
    const balancer = createBalancer();
    const one: Fake[] = [{ name: 'a', down: false, load: 0 }];
    expect(names(balancer.order('m', one, facts))).toEqual(['a']);
    const pair: Fake[] = [
      { name: 'a', down: false, load: 0 },
      { name: 'b', down: false, load: 0 },
    ];
    balancer.order('m', pair, facts);
    balancer.reset();
    expect(names(balancer.order('m', pair, facts))).toEqual(['a', 'b']);
  });
});

describe('shouldFailover', () => {
  const fresh = { clientCommitted: false, attempts: 1, hasNext: true };

  it('tries the next backend once for a retryable failure before anything was sent', () => {
    expect(shouldFailover(new SvirError('backend_unavailable'), fresh)).toBe(true);
    expect(shouldFailover(new SvirError('upstream_error'), fresh)).toBe(true);
  });

  it('never after the first byte, never twice, never without another backend', () => {
    const error = new SvirError('upstream_error');
    expect(shouldFailover(error, { ...fresh, clientCommitted: true })).toBe(false);
    expect(shouldFailover(error, { ...fresh, attempts: 2 })).toBe(false);
    expect(shouldFailover(error, { ...fresh, hasNext: false })).toBe(false);
  });

  it('never for a failure marked non-retryable or a rejected request', () => {
    expect(shouldFailover(new SvirError('upstream_error', { retryable: false }), fresh)).toBe(false);
    expect(shouldFailover(new SvirError('context_length_exceeded'), fresh)).toBe(false);
    expect(shouldFailover(new SvirError('invalid_request'), fresh)).toBe(false);
    expect(shouldFailover(new Error('client went away'), fresh)).toBe(false);
  });
});

describe('runWithFailover', () => {
  const unavailable = () => new SvirError('backend_unavailable', { backend: 'x' });

  it('tries the next candidate once after a retryable failure before the first byte', async () => {
    const tried: string[] = [];
    const moves: string[] = [];
    await runWithFailover(
      ['a', 'b', 'c'],
      async (name) => {
        tried.push(name);
        if (name === 'a') throw unavailable();
      },
      { clientCommitted: () => false, onFailover: (_err, from, to) => moves.push(`${from}->${to}`) },
    );
    expect(tried).toEqual(['a', 'b']);
    expect(moves).toEqual(['a->b']);
  });

  it('with one candidate: one attempt, its failure as it came (retryable or not), no failover', async () => {
    const tried: string[] = [];
    const onFailover = vi.fn();
    const failure = unavailable();
    const outcome = runWithFailover(
      ['a'],
      async (name) => {
        tried.push(name);
        throw failure;
      },
      { clientCommitted: () => false, onFailover },
    );
    await expect(outcome).rejects.toBe(failure);
    await expect(runWithFailover(['a'], async () => undefined, { clientCommitted: () => false })).resolves.toBeUndefined();
    await expect(runWithFailover([], async () => undefined, { clientCommitted: () => false })).rejects.toThrow('at least one candidate');
    expect(tried).toEqual(['a']);
    expect(onFailover).not.toHaveBeenCalled();
  });

  it('gives up after the second attempt with its error', async () => {
    const tried: string[] = [];
    const second = new SvirError('upstream_error', { message: 'second' });
    const outcome = runWithFailover(
      ['a', 'b', 'c'],
      async (name) => {
        tried.push(name);
        throw name === 'a' ? unavailable() : second;
      },
      { clientCommitted: () => false },
    );
    await expect(outcome).rejects.toBe(second);
    expect(tried).toEqual(['a', 'b']);
  });

  it('does not retry once the client got a byte, nor a non-retryable failure', async () => {
    const tried: string[] = [];
    const run = (committed: boolean, error: SvirError) =>
      runWithFailover(
        ['a', 'b'],
        async (name) => {
          tried.push(name);
          throw error;
        },
        { clientCommitted: () => committed },
      );
    await expect(run(true, unavailable())).rejects.toMatchObject({ code: 'backend_unavailable' });
    await expect(run(false, new SvirError('context_length_exceeded'))).rejects.toMatchObject({ code: 'context_length_exceeded' });
    expect(tried).toEqual(['a', 'a']);
  });

  it('refuses an empty candidate list', async () => {
    await expect(runWithFailover([], async () => undefined, { clientCommitted: () => false })).rejects.toThrow('at least one');
  });
});
