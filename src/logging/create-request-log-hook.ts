/**
 * The request line (docs/server.md, Logs): every request gets its summary from the start and its
 * `x-request-id`, and when its response closes, one line is logged (a warning for a 5xx or an
 * internal error) and a routed request is handed to the live page's recent requests
 * (docs/live-page.md).
 *
 * It takes `done` rather than returning a promise: each request runs it, and an async hook costs
 * a promise and a turn of the microtask queue for nothing it waits on.
 */
import type { onRequestHookHandler } from 'fastify';
import type { Monitor } from '../monitor/create-monitor.js';
import type { Logger } from './create-logger.js';
import { startSummary } from './start-summary.js';
import { summaryLine } from './summary-line.js';

export interface RequestLogHookDeps {
  now(): number;
  /** The request line's logger (create-request-line-logger.ts). */
  lineLog: Logger;
  monitor: Pick<Monitor, 'finished'>;
}

export function createRequestLogHook(deps: RequestLogHookDeps): onRequestHookHandler {
  const { now, lineLog, monitor } = deps;
  return (request, reply, done) => {
    const summary = startSummary(request, now());
    reply.header('x-request-id', request.id);
    // `on`, not `once`: a response closes once, and a once-listener is wrapped, then taken off
    // the listener list when it runs, on every request.
    reply.raw.on('close', () => {
      const raw = reply.raw;
      const line = summaryLine(request, summary, raw.statusCode, now(), !raw.writableFinished);
      if (raw.statusCode >= 500 || summary.error?.code === 'internal_error') lineLog.warn(line, 'request');
      else lineLog.info(line, 'request');
      if (summary.route !== undefined) monitor.finished({ route: summary.route, startedAt: summary.startedAt, line });
    });
    done();
  };
}
