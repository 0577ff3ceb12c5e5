/**
 * createUpstreamPool: one undici Agent per backend, kept while its URL and timeouts stay the
 * same (whether asked with the same config object, or an equal one after a reload), replaced
 * when they change, and made anew after the pool was closed.
 */
import { describe, expect, it } from 'vitest';
import { configSchema, type BackendConfig } from '../../src/config/schema.js';
import { createUpstreamPool } from '../../src/upstream/create-upstream-pool.js';

function backend(fields: Record<string, unknown> = {}): BackendConfig {
  const config = configSchema.parse({ backends: [{ name: 'b1', type: 'openai', url: 'http://127.0.0.1:9/v1', ...fields }] });
  const first = config.backends[0];
  if (first === undefined) throw new Error('no backend');
  return first;
}

describe('createUpstreamPool', () => {
  it('gives a backend the same agent while its URL and timeouts stay, and a new one when they change', async () => {
    const pool = createUpstreamPool();
    const config = backend();
    const agent = pool.dispatcherFor(config);
    expect(pool.dispatcherFor(config)).toBe(agent);
    // A reload parses the config again: equal objects, the same agent.
    const reloaded = backend();
    expect(pool.dispatcherFor(reloaded)).toBe(agent);
    expect(pool.dispatcherFor(config)).toBe(agent);

    const slower = backend({ timeouts: { idleMs: 123_456 } });
    const replaced = pool.dispatcherFor(slower);
    expect(replaced).not.toBe(agent);
    expect(pool.dispatcherFor(slower)).toBe(replaced);
    // The old config asked again is not handed the retired agent it had.
    const back = pool.dispatcherFor(config);
    expect(back).not.toBe(agent);
    expect(back).not.toBe(replaced);
    expect(pool.dispatcherFor(config)).toBe(back);
    await pool.destroy();
  });

  it('makes a new agent after it was closed', async () => {
    const pool = createUpstreamPool();
    const config = backend();
    const agent = pool.dispatcherFor(config);
    await pool.close();
    const after = pool.dispatcherFor(config);
    expect(after).not.toBe(agent);
    expect(pool.dispatcherFor(config)).toBe(after);
    await pool.destroy();
  });

  it('lends each backend its own scratch space: a join buffer and a URL memo, none shared', async () => {
    const pool = createUpstreamPool();
    const one = pool.dispatcherFor(backend());
    const two = pool.dispatcherFor(backend({ name: 'b2', url: 'http://127.0.0.1:10/v1' }));
    expect(one.joinBuffer).not.toBe(two.joinBuffer);
    expect(one.urlParts).not.toBe(two.urlParts);
    const joined = one.joinBuffer.join([Buffer.from('data: a'), Buffer.from('\n\n')]);
    expect(joined.toString('utf8')).toBe('data: a\n\n');
    expect(two.joinBuffer.join([Buffer.from('x'), Buffer.from('y')]).buffer).not.toBe(joined.buffer);
    expect(one.urlParts('http://127.0.0.1:9/v1/chat/completions')).toEqual({ origin: 'http://127.0.0.1:9', path: '/v1/chat/completions' });
    await pool.destroy();
  });
});
