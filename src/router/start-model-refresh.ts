/**
 * Model lists are asked again every modelRefreshMs, which also keeps each backend's state
 * (balancing, /metrics) current when no request comes. The timer never holds the process open.
 */
import type { ModelRegistry } from './create-model-registry.js';

export interface ModelRefresh {
  /** Asks again at this period from now on (a config reload). */
  restart(ms: number): void;
  stop(): void;
}

export function startModelRefresh(registry: Pick<ModelRegistry, 'refresh'>, ms: number): ModelRefresh {
  const start = (period: number): NodeJS.Timeout => {
    const timer = setInterval(() => void registry.refresh(), period);
    timer.unref();
    return timer;
  };
  let timer = start(ms);
  return {
    restart(period) {
      clearInterval(timer);
      timer = start(period);
    },
    stop() {
      clearInterval(timer);
    },
  };
}
