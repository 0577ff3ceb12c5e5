/**
 * svir on 127.0.0.1:0 in front of one scripted fake upstream per backend flavor, each serving
 * its model. A test scripts what a flavor's server answers next, points a real client at
 * `baseURL`, and reads what the client made of svir's stream.
 */
import { configSchema, type Config } from '../../../src/config/schema.js';
import { buildServer } from '../../../src/server.js';
import { startScriptedUpstream, type RecordedRequest, type ScriptedResponse, type ScriptedUpstream } from '../../fakes/scripted-upstream.js';
import { BACKEND_FLAVORS, type BackendFlavor } from './backend-flavors.js';
import { renderUpstreamTurn, type RenderOptions } from './render-upstream-turn.js';
import type { UpstreamTurn } from './upstream-turn.js';

export interface ClientRig {
  /** `http://127.0.0.1:<port>/v1`: what a client takes as its base URL. */
  baseURL: string;
  /** svir's own key, which clients send as their API key. */
  apiKey: string;
  config: Config;
  upstreamOf(flavor: BackendFlavor): ScriptedUpstream;
  /** The flavor's server answers the next chat requests with this turn, in its dialect. */
  script(flavor: BackendFlavor, turn: UpstreamTurn, options?: RenderOptions): void;
  /**
   * The flavor's server answers the next chat requests with these turns, one per request, in
   * order (the last one keeps answering): a client's multi-turn conversation.
   */
  scriptTurns(flavor: BackendFlavor, ...turns: UpstreamTurn[]): void;
  /** The chat requests the flavor's server received, in order. */
  chatRequestsTo(flavor: BackendFlavor): RecordedRequest[];
  /** The flavor's server answers the next chat requests with this raw response. */
  scriptRaw(flavor: BackendFlavor, response: ScriptedResponse): void;
  /** Every request svir received, as `METHOD /path`, in order: which of its routes a client used. */
  received(): readonly string[];
  close(): Promise<void>;
}

export interface ClientRigOptions {
  flavors?: readonly BackendFlavor[];
  /** Extra backends (e.g. one nothing listens on), appended to the flavors'. */
  extraBackends?: Record<string, unknown>[];
  /** Overrides of `server` (e.g. a small body limit). */
  server?: Record<string, unknown>;
  /** Overrides for every flavor's backend entry (e.g. short timeouts). */
  backend?: Record<string, unknown>;
}

const SVIR_KEY = 'sk-svir-client-tests';

export async function startClientRig(options: ClientRigOptions = {}): Promise<ClientRig> {
  const flavors = options.flavors ?? BACKEND_FLAVORS;
  const upstreams = new Map<string, ScriptedUpstream>();
  for (const flavor of flavors) {
    const upstream = await startScriptedUpstream();
    upstream.models([flavor.clientModel]);
    upstreams.set(flavor.name, upstream);
  }
  const upstreamOf = (flavor: BackendFlavor): ScriptedUpstream => {
    const upstream = upstreams.get(flavor.name);
    if (upstream === undefined) throw new Error(`no fake upstream for ${flavor.name}`);
    return upstream;
  };

  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, apiKeys: [SVIR_KEY], logLevel: 'silent', keepaliveMs: 0, ...options.server },
    backends: [
      ...flavors.map((flavor) => ({
        name: flavor.name,
        type: flavor.type,
        url: `${upstreamOf(flavor).url}${flavor.urlPath}`,
        models: [flavor.clientModel],
        reasoningTags: flavor.reasoningTags,
        ...(flavor.apiKey === undefined ? {} : { apiKey: flavor.apiKey }),
        ...options.backend,
      })),
      ...(options.extraBackends ?? []),
    ],
  });

  const app = await buildServer(config);
  const received: string[] = [];
  app.addHook('onRequest', async (request) => {
    received.push(`${request.method} ${request.url.split('?')[0] ?? ''}`);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');

  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    apiKey: SVIR_KEY,
    config,
    upstreamOf,
    script(flavor, turn, renderOptions) {
      upstreamOf(flavor).route('POST', flavor.chatPath, renderUpstreamTurn(flavor, turn, renderOptions));
    },
    scriptTurns(flavor, ...turns) {
      upstreamOf(flavor).route('POST', flavor.chatPath, ...turns.map((turn) => renderUpstreamTurn(flavor, turn)));
    },
    chatRequestsTo(flavor) {
      return upstreamOf(flavor).requestsTo('POST', flavor.chatPath);
    },
    scriptRaw(flavor, response) {
      upstreamOf(flavor).route('POST', flavor.chatPath, response);
    },
    received: () => received,
    async close() {
      // The fakes first: a stream still waiting on one ends, so svir has nothing to wait for.
      for (const upstream of upstreams.values()) await upstream.close();
      await app.close();
    },
  };
}
