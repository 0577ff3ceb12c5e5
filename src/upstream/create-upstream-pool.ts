/**
 * One undici Agent per backend: its own connection pool and keep-alive, and its own connect
 * timeout. Requests never share sockets across backends, so one stalled server cannot hold
 * another's connections.
 */
import { Agent } from 'undici';
import type { BackendConfig } from '../config/schema.js';
import { createJoinBuffer } from './create-join-buffer.js';
import { createUrlMemo } from './create-url-memo.js';
import type { DispatcherScratch } from './dispatcher-scratch.js';

/** One backend's agent, with the scratch space its requests reuse (dispatcher-scratch.ts). */
export type UpstreamDispatcher = Agent & DispatcherScratch;

export interface UpstreamPool {
  /** The dispatcher for a backend (made on first use; remade when its URL or timeouts change). */
  dispatcherFor(backend: BackendConfig): UpstreamDispatcher;
  /** Lets requests in flight finish, then closes every connection. */
  close(): Promise<void>;
  /** Closes every connection now, failing requests in flight. */
  destroy(): Promise<void>;
}

function agentKey(backend: BackendConfig): string {
  return JSON.stringify([backend.url, backend.timeouts]);
}

function createAgent(backend: BackendConfig): UpstreamDispatcher {
  const { connectMs, firstTokenMs, idleMs } = backend.timeouts;
  const agent = new Agent({
    connect: { timeout: connectMs },
    // undici's own 300 s defaults would cut a long prompt short. The first body bytes of a
    // stream may come only with the first token, so the body timeout also waits that long;
    // finer first-token and idle limits are the server layer's.
    headersTimeout: firstTokenMs,
    bodyTimeout: Math.max(firstTokenMs, idleMs),
  });
  const scratch: DispatcherScratch = { joinBuffer: createJoinBuffer(), urlParts: createUrlMemo() };
  return Object.assign(agent, scratch);
}

export function createUpstreamPool(): UpstreamPool {
  const agents = new Map<string, { key: string; agent: UpstreamDispatcher }>();
  /**
   * The agent last given for a backend's config object: a request asks for its backend's every
   * time, and the key (a JSON string of the URL and timeouts) cost more than the rest of the
   * lookup. A config is never changed in place (a reload makes new objects).
   */
  const lastFor = new WeakMap<BackendConfig, UpstreamDispatcher>();
  const retired: UpstreamDispatcher[] = [];
  /** Every agent, current and retired; the pool starts afresh after. */
  const takeAll = (): UpstreamDispatcher[] => {
    const all = [...[...agents.values()].map((entry) => entry.agent), ...retired];
    agents.clear();
    return all;
  };

  return {
    dispatcherFor(backend) {
      const existing = agents.get(backend.name);
      const last = lastFor.get(backend);
      // Still the backend's agent (not replaced for another config, nor closed since).
      if (last !== undefined && existing?.agent === last) return last;
      const key = agentKey(backend);
      if (existing !== undefined && existing.key === key) {
        lastFor.set(backend, existing.agent);
        return existing.agent;
      }
      if (existing !== undefined) {
        // Config changed: requests in flight keep the old pool until they finish.
        retired.push(existing.agent);
        void existing.agent.close().catch(() => undefined);
      }
      const agent = createAgent(backend);
      agents.set(backend.name, { key, agent });
      lastFor.set(backend, agent);
      return agent;
    },
    async close() {
      await Promise.all(takeAll().map((agent) => agent.close().catch(() => undefined)));
    },
    async destroy() {
      await Promise.all(takeAll().map((agent) => agent.destroy().catch(() => undefined)));
    },
  };
}
