/**
 * `GET /metrics`: the server's registry in Prometheus text format. Behind svir's keys when keys
 * are set (the metrics name backends and models), so a scraper sends `Authorization: Bearer`.
 */
import type { FastifyInstance } from 'fastify';
import type { SvirMetrics } from './create-metrics.js';

export function registerMetricsRoute(app: FastifyInstance, deps: { metrics: SvirMetrics }): void {
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await deps.metrics.render();
    return reply.type(contentType).send(body);
  });
}
