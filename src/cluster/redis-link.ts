/**
 * The connection to the Redis (or Valkey) that svir's replicas share (config `cluster`, README
 * "Several replicas"). The `redis` package (node-redis) is loaded only when `cluster.redis` is
 * set: a single svir never pays for it.
 *
 * No request waits on a Redis that is not answering:
 * - offline, commands are refused at once (node-redis' offline queue is off) and the client
 *   reconnects by itself, every 100 ms doubling to at most 2 s, for ever;
 * - each command is bounded by `commandTimeoutMs`; one that times out marks the link down, and
 *   from then on every command is refused at once until a probe (a PING every `probeMs`,
 *   bounded by the same timeout) is answered again: a paused Redis (a full disk, a stopped
 *   process) costs the requests of one timeout, not one timeout each;
 * - connecting is bounded by `connectTimeoutMs`.
 * A refusal is a SvirError `store_unavailable` (503); callers that can do without Redis (the
 * shared limit) catch it.
 */
import { createHash } from 'node:crypto';
import { SvirError } from '../errors.js';
import type { Logger } from '../logging/create-logger.js';

export type RedisState = 'connecting' | 'up' | 'down';

export interface RedisLinkOptions {
  /** `redis://` or `rediss://`. */
  url: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  probeMs: number;
}

/** A Lua script and its SHA-1 (EVALSHA, EVAL when the server does not know it yet). */
export interface LuaScript {
  source: string;
  sha: string;
}

/** A script as the link sends it: its source and the SHA-1 EVALSHA names it by. */
export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export interface RedisLink {
  state(): RedisState;
  /** The last probe's round trip in ms; undefined before the first answer. */
  latencyMs(): number | undefined;
  /** Where Redis is, for messages: host and port, never the URL's credentials. */
  readonly where: string;
  /** One command; rejects with `store_unavailable` at once when the link is not up, or past the timeout. */
  send(args: readonly string[]): Promise<unknown>;
  /** A script by its SHA (sent whole once the server says it does not know it). */
  evalScript(script: LuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** Told each state change. */
  onState(listener: (state: RedisState) => void): void;
  close(): Promise<void>;
}

/** What svir uses of node-redis' client (its full type is generic over modules svir loads none of). */
interface Client {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  destroy(): void;
  on(event: 'error' | 'ready' | 'end' | 'reconnecting', listener: (...args: unknown[]) => void): unknown;
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** Reconnect after 100 ms, doubling up to 2 s; never give up (Redis may be down for hours). */
export function reconnectDelayMs(retries: number): number {
  return Math.min(100 * 2 ** Math.min(retries, 5), 2_000);
}

function whereOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * The command's answer, or a rejection once `ms` have passed. A race rather than node-redis'
 * `timeout` command option: that one does not reject a command already written to a Redis that
 * stopped answering (a paused process), which is the case that matters. The command itself stays
 * pending until the connection answers or closes; meanwhile the link is down and sends nothing more.
 */
function within<T>(pending: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function createRedisLink(options: RedisLinkOptions, logger: Logger): RedisLink {
  const where = whereOf(options.url);
  let state: RedisState = 'connecting';
  let latency: number | undefined;
  let client: Client | undefined;
  let closed = false;
  let probing = false;
  /** An answer Redis made (a script's error, a wrong type), as node-redis types it once loaded. */
  let isReply: (err: unknown) => boolean = () => false;
  const listeners: ((state: RedisState) => void)[] = [];

  const setState = (next: RedisState, why?: string): void => {
    // After close() the client's own end ('end', 'error') is svir shutting down, not Redis
    // going away: no warning that stored responses answer 503, no state change.
    if (next === state || closed) return;
    state = next;
    if (next === 'up') logger.info({ redis: where }, 'cluster: Redis is reachable');
    else logger.warn({ redis: where, reason: why }, 'cluster: Redis is unreachable: stored responses answer 503, each replica keeps to its share of the limits');
    for (const listener of listeners) listener(next);
  };

  const unavailable = (why: string): SvirError =>
    new SvirError('store_unavailable', { message: `The shared store (Redis at ${where}) is unavailable: ${why}.` });

  const probe = async (): Promise<void> => {
    if (probing || closed || client === undefined) return;
    if (!client.isReady) {
      setState(state === 'connecting' ? 'connecting' : 'down', 'not connected');
      return;
    }
    probing = true;
    const started = performance.now();
    try {
      await within(client.sendCommand(['PING']), options.commandTimeoutMs);
      latency = performance.now() - started;
      setState('up');
    } catch (err) {
      setState('down', messageOf(err));
    } finally {
      probing = false;
    }
  };

  const timer = setInterval(() => void probe(), options.probeMs);
  timer.unref();

  const start = async (): Promise<void> => {
    // Loaded here, once, and only with `cluster.redis` set.
    const { createClient, ErrorReply } = await import('redis');
    if (closed) return;
    isReply = (err) => err instanceof ErrorReply;
    const made: Client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs,
        keepAlive: true,
        reconnectStrategy: (retries: number) => reconnectDelayMs(retries),
      },
    });
    client = made;
    // An error event without a listener would end the process; the state says what matters.
    made.on('error', (err) => setState(state === 'connecting' ? 'connecting' : 'down', messageOf(err)));
    made.on('end', () => setState('down', 'connection closed'));
    made.on('reconnecting', () => setState(state === 'connecting' ? 'connecting' : 'down', 'reconnecting'));
    made.on('ready', () => void probe());
    await made.connect();
  };
  // connect() settles once connected, or when the client is closed while it still retries.
  start().catch((err: unknown) => {
    if (!closed) logger.error({ err, redis: where }, 'cluster: the Redis client could not start');
  });

  const send = async (args: readonly string[]): Promise<unknown> => {
    if (state !== 'up' || client === undefined || !client.isReady) throw unavailable(state === 'connecting' ? 'not connected yet' : 'not answering');
    try {
      return await within(client.sendCommand(args), options.commandTimeoutMs);
    } catch (err) {
      // A reply Redis made (a script's error, a wrong type) is an answer: only silence and a lost connection mark it down.
      if (isReply(err)) throw err;
      setState('down', messageOf(err));
      throw unavailable(messageOf(err));
    }
  };

  return {
    where,
    state: () => state,
    latencyMs: () => latency,
    send,
    async evalScript(script, keys, args) {
      const tail = [String(keys.length), ...keys, ...args];
      try {
        return await send(['EVALSHA', script.sha, ...tail]);
      } catch (err) {
        if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return send(['EVAL', script.source, ...tail]);
        throw err;
      }
    },
    onState(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      client?.destroy();
    },
  };
}
