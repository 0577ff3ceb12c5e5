/**
 * svir on 127.0.0.1:0 in front of scripted fake upstreams, with its log lines collected (parsed)
 * and a fixed clock and ids, for the server-layer tests.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { configSchema, type Config, type ConfigInput } from '../../src/config/schema.js';
import { collectSecrets } from '../../src/logging/collect-secrets.js';
import { createLogger } from '../../src/logging/create-logger.js';
import type { IdKind } from '../../src/ids/create-id-maker.js';
import type { ServerDeps } from '../../src/lifecycle/server-deps.js';
import { buildServer } from '../../src/server.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';

export interface SvirUnderTest {
  app: FastifyInstance;
  config: Config;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The fake behind backend `fake` (model `m1`). */
  upstream: ScriptedUpstream;
  /** Every log line, raw. */
  logText(): string;
  /** Every log line, parsed. */
  logs(): Record<string, unknown>[];
  /** The `request` lines (one per request). */
  requestLines(): Record<string, unknown>[];
  close(): Promise<void>;
}

export interface StartSvirOptions {
  server?: Partial<NonNullable<ConfigInput['server']>>;
  /** Extra fields of the `fake` backend. */
  backend?: Record<string, unknown>;
  /** Backends after `fake`. */
  extraBackends?: Record<string, unknown>[];
  deps?: Partial<ServerDeps>;
  env?: Record<string, string>;
  /** false: the logger censors no key by value, to show svir does not log keys in the first place. */
  censorLog?: boolean;
}

const lineSchema = z.record(z.string(), z.unknown());

export const FIXED_NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

export async function startSvir(options: StartSvirOptions = {}): Promise<SvirUnderTest> {
  const upstream = await startScriptedUpstream();
  upstream.models(['m1']);
  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, logLevel: 'info', ...options.server },
    backends: [{ name: 'fake', type: 'openai', url: upstream.baseUrl, ...options.backend }, ...(options.extraBackends ?? [])],
  });
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const secrets = options.censorLog === false ? [] : [...collectSecrets(config), ...Object.values(options.env ?? {})];
  const logger = createLogger({ level: 'info', secrets, destination: sink });
  const counters = new Map<IdKind, number>();
  const makeId = (kind: IdKind): string => {
    const n = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, n);
    return `${kind}-${n}`;
  };
  const app = buildServer(config, { logger, now: () => FIXED_NOW, makeId, env: options.env ?? {}, ...options.deps });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir is not on TCP');
  const logs = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => lineSchema.parse(JSON.parse(line)));
  return {
    app,
    config,
    url: `http://127.0.0.1:${address.port}`,
    upstream,
    logText: () => text,
    logs,
    requestLines: () => logs().filter((line) => line.msg === 'request'),
    async close() {
      await app.close();
      await upstream.close();
    },
  };
}

/** Reads an SSE body into its `data:` payloads (as text), checking the framing on the way. */
export function sseData(body: string): string[] {
  if (body === '') return [];
  if (!body.endsWith('\n\n')) throw new Error(`stream does not end with a blank line: ${JSON.stringify(body.slice(-40))}`);
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((event) => {
      if (!event.startsWith('data: ') || event.includes('\n') || event.includes('\r')) {
        throw new Error(`not a clean event: ${JSON.stringify(event)}`);
      }
      return event.slice('data: '.length);
    });
}

export interface ChatCall {
  status: number;
  headers: Headers;
  text: string;
}

/** POSTs a chat request to svir with fetch. */
export async function postChat(url: string, body: unknown, headers: Record<string, string> = {}): Promise<ChatCall> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export const HELLO = { model: 'm1', messages: [{ role: 'user', content: 'hi' }] };

const errorBodySchema = z.object({ error: z.object({ code: z.string().nullable() }) });

/** The `error.code` of an error body (throws when the body is not in the one shape). */
export function errorCodeOf(body: unknown): string | null {
  return errorBodySchema.parse(body).error.code;
}
