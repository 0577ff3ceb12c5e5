import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/create-logger.js';

function collect(): { sink: Writable; text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { sink, text: () => text };
}

describe('createLogger', () => {
  it('redacts key headers and config keys by path, and key values anywhere', () => {
    const out = collect();
    const logger = createLogger({ level: 'info', secrets: ['backend-secret-1'], destination: out.sink });
    logger.info({ req: { headers: { authorization: 'Bearer client-secret-2', 'api-key': 'azure-secret-3' } } }, 'a');
    logger.info({ headers: { authorization: 'Bearer x-secret-4' }, apiKey: 'y-secret-5' }, 'b');
    logger.info({ config: { backends: [{ apiKey: 'z-secret-6' }], server: { apiKeys: ['w-secret-7'] } } }, 'c');
    logger.info(`upstream said: Incorrect API key provided: backend-secret-1`);
    const text = out.text();
    for (const secret of ['client-secret-2', 'azure-secret-3', 'x-secret-4', 'y-secret-5', 'z-secret-6', 'w-secret-7', 'backend-secret-1']) {
      expect(text).not.toContain(secret);
    }
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(7);
  });
});
