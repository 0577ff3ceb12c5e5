import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger } from '../../src/logging/lazy-child-logger.js';
import { createLogger } from '../../src/logging/create-logger.js';

function collect(): { sink: Writable; lines(): Record<string, unknown>[] } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const lines = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed !== 'object' || parsed === null) throw new Error(`not a log line: ${line}`);
        return Object.fromEntries(Object.entries(parsed).filter(([key]) => key !== 'time'));
      });
  return { sink, lines };
}

describe('LazyChildLogger', () => {
  it('writes the lines pino child(bindings, options) writes, redaction included', () => {
    const lazyOut = collect();
    const childOut = collect();
    const secrets = ['backend-secret-1'];
    const lazy = new LazyChildLogger(createLogger({ level: 'info', secrets, destination: lazyOut.sink }), { reqId: 'r-1' }, {});
    const child = createLogger({ level: 'info', secrets, destination: childOut.sink }).child({ reqId: 'r-1' }, {});
    for (const logger of [lazy, child]) {
      logger.warn({ backend: 'a', next: 'b', code: 'backend_unavailable' }, 'failover: trying the next backend for this model');
      logger.error({ err: new Error('boom backend-secret-1') }, 'svir failed unexpectedly');
      logger.info('plain %s', 'text');
      logger.debug('below the level');
      logger.child({ more: 1 }).info('from a grandchild');
    }
    expect(lazyOut.lines()).toEqual(childOut.lines());
    expect(lazyOut.lines()).toHaveLength(4);
    expect(JSON.stringify(lazyOut.lines())).not.toContain('backend-secret-1');
  });

  it('makes no child until it writes, and reads the level it would have', () => {
    const out = collect();
    const parent = createLogger({ level: 'warn', secrets: [], destination: out.sink });
    let made = 0;
    const counting = new Proxy(parent, {
      get(target, key, receiver) {
        if (key === 'child') made += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    const lazy = new LazyChildLogger(counting, { reqId: 'r-2' }, {});
    expect(lazy.level).toBe('warn');
    expect(new LazyChildLogger(counting, { reqId: 'r-3' }, { level: 'debug' }).level).toBe('debug');
    expect(made).toBe(0);
    lazy.warn('now');
    lazy.warn('again');
    expect(made).toBe(1);
    lazy.level = 'error';
    lazy.warn('not written');
    expect(out.lines().map((line) => [line.reqId, line.msg])).toEqual([
      ['r-2', 'now'],
      ['r-2', 'again'],
    ]);
  });
});
