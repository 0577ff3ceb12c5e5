/**
 * `bare-node`: a bare reverse proxy (node:http in, undici out, about 40 lines) that forwards the
 * request body as it comes and pipes the upstream body back untouched. Measured beside the floor
 * (the fastify + @fastify/http-proxy pass-through issue 15 names, pass-through.ts) for
 * information only: the gap between the two is what the framework and the plugin add.
 */
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'te', 'trailer', 'upgrade']);

function forwardable(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** `upstream` is the origin, e.g. `http://127.0.0.1:1234`; the request path is kept. */
export function createBareNodePassThrough(upstream: string): Server {
  // No limit on connections, as svir's own Agent: 1,000 concurrent streams are 1,000 upstream
  // connections, not a queue.
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  return createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const method = req.method === 'GET' ? 'GET' : 'POST';
    request(`${upstream}${req.url ?? '/'}`, {
      method,
      headers: forwardable(req.headers),
      body: method === 'GET' ? null : req,
      dispatcher,
    })
      .then((answer) => {
        res.writeHead(answer.statusCode, forwardable(answer.headers));
        // Plain pipe(): stream.pipeline would add an AbortController per request whose abort
        // on finish builds a DOMException (about 4% of this proxy's CPU), flattering svir.
        answer.body.on('error', (error) => res.destroy(error));
        res.on('close', () => answer.body.destroy());
        answer.body.pipe(res);
      })
      .catch((error: unknown) => {
        if (res.headersSent) res.destroy(error instanceof Error ? error : undefined);
        else res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream failed"}}');
      });
  });
}
