/**
 * The live page (docs/live-page.md): `GET /` for a browser (Accept names text/html; any other
 * client gets the 404 it always got), its script and style under /svir/page/, and its data under
 * /svir/api/: `state` (JSON) and `events` (Server-Sent Events). The page's three files hold no
 * data and are public, as a browser loads them before it has a key to send (auth/create-auth-hook.ts
 * exempts exactly them); the data endpoints sit behind svir's keys like every API route.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { acceptsHtml } from './accepts-html.js';
import { createEventFeed } from './event-feed.js';
import { fullState, type LiveStateSources } from './live-state.js';
import { EVENTS_PATH, PAGE_SCRIPT_PATH, PAGE_STYLE_PATH, STATE_PATH } from './page-paths.js';

/** web/ at the package root, from src/monitor/ and from dist/monitor/ alike. */
const WEB_DIR = new URL('../../web/', import.meta.url);

/**
 * The page runs its own script and style only, talks to svir alone, and is never framed; the
 * data it shows comes from clients (model names, tool names quoted in svir's notes) and is
 * written as text, never as markup (web/app.js).
 */
const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

interface PageFile {
  name: string;
  type: string;
}

const FILES: Record<string, PageFile> = {
  '/': { name: 'index.html', type: 'text/html; charset=utf-8' },
  [PAGE_SCRIPT_PATH]: { name: 'app.js', type: 'text/javascript; charset=utf-8' },
  [PAGE_STYLE_PATH]: { name: 'app.css', type: 'text/css; charset=utf-8' },
};

export function registerMonitorRoutes(app: FastifyInstance, sources: LiveStateSources): void {
  // Read at first use and kept: three small files.
  const cache = new Map<string, string>();
  const sendFile = (reply: FastifyReply, file: PageFile): FastifyReply => {
    let body = cache.get(file.name);
    if (body === undefined) {
      body = readFileSync(new URL(file.name, WEB_DIR), 'utf8');
      cache.set(file.name, body);
    }
    return reply.headers(PAGE_HEADERS).type(file.type).send(body);
  };

  app.get('/', (request, reply) => {
    const file = FILES['/'];
    if (file === undefined || !acceptsHtml(request.headers.accept)) return reply.callNotFound();
    return sendFile(reply, file);
  });
  for (const path of [PAGE_SCRIPT_PATH, PAGE_STYLE_PATH]) {
    const file = FILES[path];
    if (file !== undefined) app.get(path, (_request, reply) => sendFile(reply, file));
  }

  app.get(STATE_PATH, (_request, reply) => reply.header('cache-control', 'no-store').send(fullState(sources)));

  const feed = createEventFeed(sources);
  app.get(EVENTS_PATH, (request, reply) => {
    const headers: Record<string, string> = {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // The connection ends with the feed: ended as the server closes (below), a kept-alive
      // connection would be idle only after close had swept the idle ones, and hold it up.
      connection: 'close',
      'x-request-id': request.id,
    };
    reply.hijack();
    feed.open(reply.raw, headers);
  });
  // A page's feed never ends by itself: it is ended as the server starts closing, so that close
  // does not wait for it.
  app.addHook('preClose', (done) => {
    feed.closeAll();
    done();
  });
}
