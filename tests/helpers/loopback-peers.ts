/**
 * For tests that drive a real undici request against a node:http server on 127.0.0.1: every
 * server and Agent a test makes is registered here and closed after it, and `until` polls for
 * what the server or the socket reaches asynchronously.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { afterEach } from 'vitest';

export interface LoopbackPeers {
  /** Registers a server to close (its connections too) after the test. */
  server(server: Server): Server;
  /** A fresh Agent, destroyed after the test. */
  agent(): Agent;
  /** Registers `server` and listens on 127.0.0.1 port 0: its port and the sockets it accepts. */
  listen(server: Server): Promise<{ port: number; sockets: Socket[] }>;
}

/** Call at the top of a test file: registers the cleanup with vitest's afterEach. */
export function loopbackPeers(): LoopbackPeers {
  const servers: Server[] = [];
  const agents: Agent[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.destroy();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return {
    server(server) {
      servers.push(server);
      return server;
    },
    async listen(server) {
      servers.push(server);
      const sockets: Socket[] = [];
      server.on('connection', (socket: Socket) => sockets.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      return { port: address.port, sockets };
    },
    agent() {
      const agent = new Agent();
      agents.push(agent);
      return agent;
    },
  };
}

/** Waits until `check` holds (the machine may be slow), failing after 10 s. */
export async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 10_000) throw new Error('timed out waiting');
    await sleep(10);
  }
}
