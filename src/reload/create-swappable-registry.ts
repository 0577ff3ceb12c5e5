/**
 * A model registry whose insides a config reload replaces: routes and start-up hold this one
 * object, every call goes to the registry in force at that moment, and a request that already
 * has its candidates keeps them.
 */
import type { ModelRegistry } from '../router/create-model-registry.js';

export interface SwappableRegistry extends ModelRegistry {
  swap(next: ModelRegistry): void;
}

export function createSwappableRegistry(initial: ModelRegistry): SwappableRegistry {
  let inner = initial;
  return {
    resolve: (model) => inner.resolve(model),
    resolveKnown: (model) => inner.resolveKnown?.(model),
    list: () => inner.list(),
    refresh: () => inner.refresh(),
    status: () => inner.status(),
    backends: () => inner.backends(),
    report: (backend, reachable, reason) => inner.report(backend, reachable, reason),
    swap(next) {
      inner = next;
    },
  };
}
