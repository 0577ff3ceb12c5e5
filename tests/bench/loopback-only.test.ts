import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * bench/loopback-only.mjs, preloaded into Portkey's process: servers listen on 127.0.0.1 even
 * when no host is named, and connections or name lookups beyond loopback fail at once, each
 * written to stderr as a refusal the harness counts. Nothing here reaches the network: the
 * addresses are TEST-NET and `.invalid`, and the guard refuses them before any packet.
 */

const GUARD = fileURLToPath(new URL('../../bench/loopback-only.mjs', import.meta.url));

const SCRIPT = `
import http from 'node:http';
import net from 'node:net';
import dns from 'node:dns';
const out = {};
const server = http.createServer((req, res) => res.end('here'));
server.listen(0, async () => {
  const { address, port } = server.address();
  out.listen = address;
  out.connect = await new Promise((resolve) => {
    const socket = net.connect(80, '192.0.2.1');
    socket.on('connect', () => resolve('connected'));
    socket.on('error', (error) => resolve(error.code));
  });
  out.lookup = await new Promise((resolve) => dns.lookup('svir-bench.invalid', (error) => resolve(error ? error.code : 'resolved')));
  out.lookupPromise = await dns.promises.lookup('svir-bench.invalid').then(() => 'resolved', (error) => error.code);
  out.fetch = await fetch('http://svir-bench.invalid/').then(() => 'fetched', (error) => error.cause?.code ?? error.message);
  out.loopback = await fetch('http://127.0.0.1:' + port + '/').then((r) => r.text());
  out.localhost = await dns.promises.lookup('localhost').then(() => 'resolved', (error) => error.code);
  server.close();
  console.log(JSON.stringify(out));
});
`;

const resultSchema = z.object({
  listen: z.string(),
  connect: z.string(),
  lookup: z.string(),
  lookupPromise: z.string(),
  fetch: z.string(),
  loopback: z.string(),
  localhost: z.string(),
});

describe('bench loopback-only.mjs', () => {
  it('binds an unnamed host to 127.0.0.1, refuses and reports the rest, lets loopback through', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', GUARD, '--input-type=module', '-e', SCRIPT], {
      env: { PATH: process.env.PATH ?? '' },
      timeout: 30_000,
    });
    const result = resultSchema.parse(JSON.parse(stdout));
    expect(result).toEqual({
      listen: '127.0.0.1',
      connect: 'ECONNREFUSED',
      lookup: 'ECONNREFUSED',
      lookupPromise: 'ECONNREFUSED',
      fetch: 'ECONNREFUSED',
      loopback: 'here',
      localhost: 'resolved',
    });
    const refusals = stderr.split('\n').filter((line) => line.startsWith('loopback-only: refused'));
    expect(refusals).toEqual([
      'loopback-only: refused connect to 192.0.2.1',
      'loopback-only: refused lookup of svir-bench.invalid',
      'loopback-only: refused lookup of svir-bench.invalid',
      'loopback-only: refused connect to svir-bench.invalid',
    ]);
  });
});
