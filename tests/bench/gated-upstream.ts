/**
 * An OpenAI-shaped upstream for the bench's proxies that holds the rest of its answer until the
 * client has received the first event: a proxy that buffers the body never delivers that event,
 * and the exchange stops there instead of passing. It records the request as it arrived.
 */
import { createServer, request, type Server } from 'node:http';
import { listenOnLoopback } from '../../bench/listen-on-loopback.js';

const event = (content: string): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-gate', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

export const FIRST_EVENT = event('first');
export const REST = `${event(' and the rest')}data: [DONE]\n\n`;

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface GatedUpstream {
  server: Server;
  origin: string;
  received: Received[];
  /** Lets the answer in progress send the rest. */
  release(): void;
}

export async function startGatedUpstream(): Promise<GatedUpstream> {
  const received: Received[] = [];
  let release: () => void = () => undefined;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(FIRST_EVENT);
      release = () => res.end(REST);
    });
  });
  const port = await listenOnLoopback(server);
  return { server, origin: `http://127.0.0.1:${port}`, received, release: () => release() };
}

/**
 * POSTs `body` to `url` and, once the first event has arrived (and only then), releases the
 * upstream. Resolves with the whole answer and what had arrived before the release; rejects
 * after `patienceMs` without the first event (the proxy held it back).
 */
export function postThroughGate(
  url: string,
  body: string,
  headers: Record<string, string>,
  gate: GatedUpstream,
  patienceMs = 20_000,
): Promise<{ status: number; beforeRelease: string; whole: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let whole = '';
      let beforeRelease: string | undefined;
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`no first event within ${patienceMs} ms: the proxy held the stream back (got ${JSON.stringify(whole)})`));
      }, patienceMs);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        whole += chunk;
        if (beforeRelease === undefined && whole.includes(FIRST_EVENT)) {
          clearTimeout(timer);
          beforeRelease = whole;
          gate.release();
        }
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, beforeRelease: beforeRelease ?? '', whole });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
