/**
 * svir on 127.0.0.1:0 in front of one fake OpenAI-compatible server (backend `fake`, type
 * openai, its model discovered from GET /v1/models), for the live page's tests. The test takes
 * the backend down and up by what its model list answers, and scripts the chat answers (slow
 * streams for the open-request view).
 */
import type { FastifyInstance } from 'fastify';
import { configSchema } from '../../../src/config/schema.js';
import { buildServer } from '../../../src/server.js';
import { shutdownServer } from '../../../src/lifecycle/shutdown-server.js';
import { sse, startScriptedUpstream, type Piece, type ScriptedUpstream } from '../../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../../helpers/chat-chunk-maker.js';

export const LIVE_MODEL = 'fake-model';
export const BACKEND = 'fake';
/** The backend's own key: it must never reach the page. */
export const UPSTREAM_KEY = 'sk-upstream-secret-never-shown';

export interface LivePageRig {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  upstream: ScriptedUpstream;
  app: FastifyInstance;
  /** The fake's model list resets the connection from now on: the next refresh marks it down. */
  takeBackendDown(): void;
  /** The fake's model list answers again. */
  bringBackendUp(): void;
  /** The next chat answers stream these texts, one chunk each, `delayMs` apart. */
  streamAnswer(texts: readonly string[], delayMs: number): void;
  close(): Promise<void>;
}

export interface LivePageRigOptions {
  apiKeys?: string[];
  /** How often svir asks the fake for its models (the down/up checks). */
  modelRefreshMs?: number;
}

const { chunk, usage } = chatChunkMaker({ id: 'chatcmpl-fake', created: 1, model: LIVE_MODEL });

/** An OpenAI stream of these texts, then the finish, the usage and [DONE], with waits between. */
export function answerPieces(texts: readonly string[], delayMs: number): Piece[] {
  const pieces: Piece[] = [sse(chunk({ role: 'assistant', content: '' }, null))];
  for (const text of texts) {
    if (delayMs > 0) pieces.push({ delayMs });
    pieces.push(sse(chunk({ content: text }, null)));
  }
  pieces.push(
    sse(
      chunk({}, 'stop'),
      usage({ prompt_tokens: 7, completion_tokens: texts.length, total_tokens: 7 + texts.length }),
      '[DONE]',
    ),
  );
  return pieces;
}

export async function startLivePageRig(options: LivePageRigOptions = {}): Promise<LivePageRig> {
  const upstream = await startScriptedUpstream();
  upstream.models([LIVE_MODEL]);
  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, apiKeys: options.apiKeys ?? [], logLevel: 'silent', keepaliveMs: 0 },
    modelRefreshMs: options.modelRefreshMs ?? 30_000,
    backends: [{ name: BACKEND, type: 'openai', url: `${upstream.url}/v1`, apiKey: UPSTREAM_KEY, maxConcurrent: 3, maxQueue: 5 }],
  });
  const app = await buildServer(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');
  await app.svir.registry.refresh();
  return {
    origin: `http://127.0.0.1:${address.port}`,
    upstream,
    app,
    takeBackendDown() {
      upstream.route('GET', '/v1/models', {
        kind: 'handler',
        handle: (req) => {
          req.socket.destroy();
        },
      });
    },
    bringBackendUp() {
      upstream.models([LIVE_MODEL]);
    },
    streamAnswer(texts, delayMs) {
      upstream.chat({ kind: 'sse', pieces: answerPieces(texts, delayMs) });
    },
    async close() {
      await upstream.close();
      // As the CLI closes: the connections a client opened and never used are closed too.
      await shutdownServer(app, 1_000);
    },
  };
}
