/**
 * A mock OpenAI-compatible server (node:http) that streams a realistic answer. Bytes are built
 * once at start (mock-stream.ts), so per request the mock only reads the body and writes buffers:
 * its own cost stays small next to what is measured.
 *
 *   POST /v1/chat/completions           OpenAI-shaped chunks
 *   POST /llamacpp/v1/chat/completions  llama.cpp-shaped chunks (for svir's `llamacpp` backend)
 *   GET  /v1/models, /llamacpp/v1/models
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';
import { buildMockStream, DEFAULT_STREAM, type MockStreamOptions } from './mock-stream.js';

export interface MockUpstreamOptions {
  stream: Omit<MockStreamOptions, 'dialect'>;
  /** Delay between two chunks; 0 writes the whole answer back to back. */
  delayMs: number;
  port?: number;
}

export const DEFAULT_MOCK: MockUpstreamOptions = {
  stream: { chunks: DEFAULT_STREAM.chunks, reasoning: 'off', toolCalls: false, usage: true },
  delayMs: 0,
};

const MODELS = {
  openai: Buffer.from(JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model', owned_by: 'bench' }] })),
  llamacpp: Buffer.from(
    JSON.stringify({
      object: 'list',
      data: [{ id: '/models/muse-glimmer-30b-Q4_K_M.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx: 16384 } }],
    }),
  ),
};

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

export function createMockUpstream(options: MockUpstreamOptions): Server {
  const streams = {
    openai: buildMockStream({ ...options.stream, dialect: 'openai' }),
    llamacpp: buildMockStream({ ...options.stream, dialect: 'llamacpp' }),
  };

  const send = (res: ServerResponse, events: Buffer[]): void => {
    res.writeHead(200, SSE_HEADERS);
    if (options.delayMs <= 0) {
      for (const bytes of events) res.write(bytes);
      res.end();
      return;
    }
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      const bytes = events[i++];
      if (bytes === undefined) {
        res.end();
        return;
      }
      res.write(bytes);
      setTimeout(next, options.delayMs);
    };
    next();
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const dialect = url.startsWith('/llamacpp/') ? 'llamacpp' : 'openai';
    const path = dialect === 'llamacpp' ? url.slice('/llamacpp'.length) : url;

    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(MODELS[dialect]);
      return;
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      // Read the whole body first, as a real server does before it starts generating.
      req.on('data', () => undefined);
      req.on('end', () => send(res, streams[dialect]));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found","type":"invalid_request_error","code":null}}');
  };

  const server = createServer({ keepAliveTimeout: 60_000 }, handle);
  return server;
}

export async function startMockUpstream(options: MockUpstreamOptions): Promise<{ server: Server; port: number }> {
  const server = createMockUpstream(options);
  const port = await listenOnLoopback(server, options.port ?? 0);
  return { server, port };
}
