/**
 * `GET /readyz`: ready when at least one backend answers. Every backend is asked for its model
 * list now (the same question discovery asks), so the answer is fresh; 200 with each backend's
 * state, or 503 `backend_unavailable` in the one error shape naming why each one is down. No
 * auth (auth/create-auth-hook.ts exempts it), like `/healthz`, which only says svir is up.
 */
import type { FastifyInstance } from 'fastify';
import { SvirError } from '../errors.js';
import type { ModelRegistry } from '../router/create-model-registry.js';

/** The shared store's link, as readiness reads it (src/cluster/redis-link.ts). */
export interface ClusterHealth {
  state(): 'connecting' | 'up' | 'down';
  latencyMs(): number | undefined;
  readonly where: string;
}

/**
 * Redis's state beside the backends' (README "Several replicas"). Redis down does not make svir
 * unready: chat, embeddings and completions are still served, stored responses answer 503.
 */
function redisOf(cluster: ClusterHealth): { state: string; where: string; latencyMs: number | null } {
  const latency = cluster.latencyMs();
  return { state: cluster.state(), where: cluster.where, latencyMs: latency === undefined ? null : Math.round(latency * 1000) / 1000 };
}

/** Seconds a probe is asked to wait before asking again when nothing answers. */
const NOT_READY_RETRY_AFTER_S = 5;

export function registerReadinessRoute(app: FastifyInstance, deps: { registry: ModelRegistry; cluster?: ClusterHealth | undefined }): void {
  app.get('/readyz', async () => {
    const statuses = await deps.registry.refresh();
    if (!statuses.some((status) => status.state === 'up')) {
      const why = statuses.map((status) => `${status.name}: ${status.reason ?? status.state}`).join('; ');
      throw new SvirError('backend_unavailable', {
        retryAfter: NOT_READY_RETRY_AFTER_S,
        message: `svir is not ready: no backend answers (${why}).`,
      });
    }
    const backends = statuses.map((status) => ({ name: status.name, state: status.state, models: status.models.length }));
    return deps.cluster === undefined ? { status: 'ready', backends } : { status: 'ready', backends, redis: redisOf(deps.cluster) };
  });
}
