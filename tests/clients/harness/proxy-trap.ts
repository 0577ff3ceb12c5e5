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

/** A local stand-in for every proxy: records the first line of each connection, then closes it. */
export async function startProxyTrap(): Promise<ProxyTrap> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', (data: Buffer) => {
      attempts.push(data.toString('latin1').split('\r\n')[0] ?? '');
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
