/**
 * A real redis-server for the cluster tests (Debian's package; .ci/run installs it): started on
 * a free loopback port with its own empty temp folder, no persistence, never the system
 * service. A test kills it, pauses it (SIGSTOP), resumes it and starts it again on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisProcess {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** SIGKILL, and the exit awaited. */
  kill(): Promise<void>;
  /** SIGSTOP: the socket stays open, nothing answers. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** A new server on the same port (empty: nothing was persisted). */
  restart(): Promise<void>;
  /** One command through a fresh connection, its raw RESP reply (for the tests' own checks). */
  command(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function encode(args: readonly string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svir-redis-'));
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const made = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = made;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (data: Buffer): void => {
        out += data.toString();
        if (out.includes('Ready to accept connections')) {
          made.stdout?.off('data', onData);
          resolve();
        }
      };
      made.stdout?.on('data', onData);
      made.once('exit', (code) => reject(new Error(`redis-server exited (${String(code)}): ${out}`)));
      made.once('error', reject);
    });
    made.stdout?.resume();
  };

  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGCONT');
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async restart() {
      await kill();
      await start();
    },
    command(...args) {
      return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let reply = '';
        socket.setTimeout(2_000, () => socket.destroy(new Error('redis did not answer')));
        socket.on('connect', () => socket.write(encode(args)));
        socket.on('data', (data) => {
          reply += data.toString();
          if (reply.endsWith('\r\n')) {
            socket.end();
            resolve(reply);
          }
        });
        socket.on('error', reject);
      });
    },
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
