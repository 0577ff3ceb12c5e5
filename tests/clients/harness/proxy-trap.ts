/**
 * A local stand-in for every proxy a client run is given (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY,
 * lower-case too): whatever the client tries to reach but svir on 127.0.0.1 lands here.
 */
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';

export interface ProxyTrap {
  url: string;
  /** The first line of every connection made to it: must stay empty. */
  attempts: string[];
  close(): Promise<void>;
}

/** The environment variables of every proxy, pointed at the trap; loopback left out of them. */
export function proxyEnv(trapUrl: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
    env[name] = trapUrl;
    env[name.toLowerCase()] = trapUrl;
  }
  env['NO_PROXY'] = '127.0.0.1,localhost';
  env['no_proxy'] = '127.0.0.1,localhost';
  return env;
}

/**
 * Whether a connection's first line is a client's use of a proxy: `CONNECT host:port`, or a
 * request for an absolute URL (`GET http://host/path`). A request in origin form
 * (`GET /v1/models`) was meant for whatever listened on this port before: the trap takes a
 * port the system hands out, which may be the port of a fake server a test closed, and svir's
 * model-list refresh of an earlier test still asked that address (seen once in a full run).
 */
export function isProxyRequest(line: string): boolean {
  return /^CONNECT /.test(line) || /^[A-Z]+ [a-z][a-z0-9+.-]*:\/\//i.test(line);
}

/** A local stand-in for every proxy: records the first line of each proxy request, then closes it. */
export async function startProxyTrap(): Promise<ProxyTrap> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', (data: Buffer) => {
      const line = data.toString('latin1').split('\r\n')[0] ?? '';
      if (isProxyRequest(line)) attempts.push(line);
      socket.destroy();
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy trap has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    attempts,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
