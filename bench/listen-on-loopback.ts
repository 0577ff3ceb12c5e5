/** Listen on 127.0.0.1 (port 0: any free port) and return the port actually bound. */
import type { Server } from 'node:http';

export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server is not listening on TCP');
  return address.port;
}
