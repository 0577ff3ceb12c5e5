/**
 * svir on 127.0.0.1:0 in front of several scripted fake backends (one per entry, each a real
 * HTTP server on port 0), for the multi-backend tests: routing, model lists, failover, queues,
 * timeouts, metrics and reload.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { configSchema, type Config, type ConfigInput } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/logging/create-logger.js';
import { buildServer } from '../../../src/server.js';
import { buildChatEvents } from '../../faults/chat-events.js';
import { sse, startScriptedUpstream, type Piece, type ScriptedResponse, type ScriptedUpstream } from '../../fakes/scripted-upstream.js';
import { closedPort } from '../../helpers/closed-port.js';

export interface FleetBackend {
  name: string;
  /** What its fake lists on GET /v1/models (discovery); ignored when `url` is given. */
  listed?: readonly string[];
  /** No fake: the backend points here (a closed port, a silent TCP server). */
  url?: string;
  /** More backend keys (models, maxConcurrent, timeouts, ...). */
  extra?: Record<string, unknown>;
}

export interface FleetOptions {
  backends: readonly FleetBackend[];
  aliases?: Record<string, string>;
  server?: Record<string, unknown>;
  modelRefreshMs?: number;
}

export interface Fleet {
  app: FastifyInstance;
  config: Config;
  url: string;
  /** The fake behind a backend. */
  upstream(name: string): ScriptedUpstream;
  /** Every log line svir wrote. */
  logText(): string;
  close(): Promise<void>;
}

/** The config of a fleet, with the fakes' URLs filled in. */
export function fleetConfig(options: FleetOptions, urls: ReadonlyMap<string, string>): Config {
  const input: ConfigInput = {
    server: { host: '127.0.0.1', port: 0, logLevel: 'info', ...options.server },
    aliases: options.aliases ?? {},
    backends: options.backends.map((backend) => ({
      name: backend.name,
      type: 'openai',
      url: backend.url ?? urls.get(backend.name) ?? '',
      ...backend.extra,
    })),
  };
  if (options.modelRefreshMs !== undefined) input.modelRefreshMs = options.modelRefreshMs;
  return configSchema.parse(input);
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const upstreams = new Map<string, ScriptedUpstream>();
  for (const backend of options.backends) {
    if (backend.url !== undefined) continue;
    const upstream = await startScriptedUpstream();
    upstream.models(backend.listed ?? []);
    upstreams.set(backend.name, upstream);
  }
  const config = fleetConfig(options, new Map([...upstreams].map(([name, upstream]) => [name, upstream.baseUrl])));
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const app = buildServer(config, { logger: createLogger({ level: 'info', secrets: [], destination: sink }), env: {} });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir is not on TCP');
  return {
    app,
    config,
    url: `http://127.0.0.1:${address.port}`,
    upstream(name) {
      const upstream = upstreams.get(name);
      if (upstream === undefined) throw new Error(`no fake behind backend ${name}`);
      return upstream;
    },
    logText: () => text,
    async close() {
      await app.close();
      await Promise.all([...upstreams.values()].map((upstream) => upstream.close()));
    },
  };
}

/** A well-behaved streamed answer: role chunk, the content pieces, `stop`, `[DONE]`. */
export function answer(content: readonly string[], options: { before?: Piece[]; between?: Piece } = {}): ScriptedResponse {
  const events = buildChatEvents({ content: [...content] });
  const pieces: Piece[] = [...(options.before ?? [])];
  events.forEach((event, i) => {
    if (i > 0 && options.between !== undefined) pieces.push(options.between);
    pieces.push(sse(event));
  });
  pieces.push(sse('[DONE]'));
  return { kind: 'sse', pieces };
}

/** A request body for svir. */
export function chatBody(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: 'hi' }], ...extra };
}

export interface Answered {
  status: number;
  headers: Headers;
  text: string;
}

export async function post(url: string, body: unknown): Promise<Answered> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Waits until `check` holds, polling (for states svir reaches asynchronously). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A port nothing listens on (it was just free). */
export async function closedPortUrl(): Promise<{ port: number; url: string }> {
  const port = await closedPort();
  return { port, url: `http://127.0.0.1:${port}/v1` };
}

/**
 * A backend that comes up late: listens on `port` (where svir was told the backend is) and
 * forwards every connection to `target` (a scripted fake started meanwhile).
 */
export async function comeUpOn(port: number, target: ScriptedUpstream): Promise<{ close(): Promise<void> }> {
  const net = await import('node:net');
  const targetPort = Number(new URL(target.url).port);
  const sockets = new Set<import('node:net').Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
