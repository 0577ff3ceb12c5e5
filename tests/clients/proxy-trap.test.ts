/**
 * The proxy trap counts a client's use of a proxy, not a stray direct connection to a port it
 * was handed that another server had before (harness/proxy-trap.ts).
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isProxyRequest, startProxyTrap } from './harness/proxy-trap.js';

describe('isProxyRequest', () => {
  it.each([
    ['CONNECT api.openai.com:443 HTTP/1.1', true],
    ['GET http://example.com/ HTTP/1.1', true],
    ['POST https://example.com/v1/responses HTTP/1.1', true],
    ['GET /v1/models HTTP/1.1', false],
    ['POST /v1/chat/completions HTTP/1.1', false],
    ['', false],
  ])('%s → %s', (line, expected) => {
    expect(isProxyRequest(line)).toBe(expected);
  });
});

describe('startProxyTrap', () => {
  it('records a request through it as a proxy, and not a direct request for a path', async () => {
    const trap = await startProxyTrap();
    const { port } = new URL(trap.url);
    const direct = (path: string): Promise<void> =>
      new Promise((resolve) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, () => resolve());
        req.on('error', () => resolve());
        req.end();
      });
    await direct('/v1/models');
    await direct('http://example.com/');
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    expect(trap.attempts).toEqual(['GET http://example.com/ HTTP/1.1', 'CONNECT example.com:443 HTTP/1.1']);
    await trap.close();
  });
});
