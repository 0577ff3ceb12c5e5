/**
 * What every backend adapter provides. Adapters are pure: (request, backend) → upstream call,
 * and (upstream event or error body) → neutral parts or one SvirError. No I/O, no Fastify,
 * no logger, no timers.
 */
import type { ChatRequest } from '../requests/chat-request.js';
import type { BackendConfig, BackendType } from '../config/schema.js';
import type { TokenCountInput, TokenCountPlan } from './models/token-count-plan.js';
import type { SvirError } from '../errors.js';
import type { Part, SseEvent } from '../normalize/parts.js';
import type { ReasoningTags, StreamContext } from '../normalize/stream-context.js';
import type { ReasoningMarkers } from '../normalize/think-tag-splitter.js';

/** A backend as the router knows it at the time of the request. */
export interface BackendInfo {
  config: BackendConfig;
  /** The base URL normalized to end in `/v1/` (see normalize-base-url.ts). */
  baseUrl: string;
  /** Whether it takes images: config `vision`, else what its model list said, else undefined. */
  vision: boolean | undefined;
  /**
   * The key clients receive reasoning under (config `reasoning.field`); reasoning they send back
   * on assistant turns is read from it as well as from the two carrier keys. Default
   * `reasoning_content`.
   */
  reasoningField?: string;
  /**
   * The context the server itself reported for the models it lists, in tokens, learned when its
   * model list was read: vLLM lists `max_model_len` per model. Absent: none said.
   */
  listedContexts?: ReadonlyMap<string, number>;
  /** The context the server reports for a request (llama.cpp's `/props` `n_ctx`), when it has such a route. */
  serverContext?: number;
}

export interface UpstreamCall {
  url: string;
  /** Adapter-specific headers (auth). The server layer adds content-type, accept and length. */
  headers: Record<string, string>;
  /** The JSON body; `stream: true` always. */
  body: Record<string, unknown>;
  /** What svir changed for this backend, one short phrase each, for the `x-svir-changes` header. */
  changes: string[];
}

export type ToUpstreamResult = { ok: true; call: UpstreamCall } | { ok: false; error: SvirError };

export interface RetryPlan {
  body: Record<string, unknown>;
  /** Phrase added to the changes header, e.g. `retried without stream_options`. */
  change: string;
  /**
   * The request fields the retry drops or changes. Each field is retried at most once per
   * request, so a server that refuses fields one at a time gets one retry per field, and the
   * retries end (a plan naming none is not taken).
   */
  fields: readonly string[];
}

/** The server routes svir calls, relative to the base URL's `/v1/`. */
export type UpstreamRoute = 'chat/completions' | 'completions' | 'embeddings';

/** Where one route of a backend is and the auth headers it takes (the client's key never). */
export interface UpstreamEndpoint {
  url: string;
  headers: Record<string, string>;
}

/**
 * What the server offers besides chat (docs/legacy-routes.md has the facts): a request for a
 * route it lacks, or a `suffix` it would ignore or refuse, is svir's own 400 before sending.
 */
export interface LegacyRoutes {
  /**
   * `POST /v1/completions`, if the server has it: whether it takes `suffix` (fill in the middle),
   * and whether its `prompt` may be a list (of one string, or of token ids) or only a string.
   */
  completions: { suffix: boolean; promptList: boolean } | null;
  /** `POST /v1/embeddings`. */
  embeddings: boolean;
}

/**
 * A route of the server (relative to its root, not `/v1/`) that reports the context a request
 * gets, and how to read it from the JSON answer.
 */
export interface ContextProbe {
  path: string;
  read(json: unknown): number | undefined;
}

export type { TokenCountInput, TokenCountPlan };

export interface Adapter {
  readonly type: BackendType;
  readonly legacy: LegacyRoutes;
  /** The URL and auth headers of one of the server's routes, for this model. */
  endpoint(route: UpstreamRoute, backend: BackendInfo, upstreamModel: string): UpstreamEndpoint;
  /**
   * Where the server lists its models, with the backend's own credentials (never a client's):
   * also the credentials svir's other server-level requests (`/props`, tokenizer) go with.
   */
  modelsEndpoint(backend: BackendInfo): UpstreamEndpoint;
  /**
   * How content is read for `<think>` tags when the config does not say: `off` for a type whose
   * models never write them (Azure OpenAI), else `auto` (absent).
   */
  readonly defaultReasoningTags?: ReasoningTags;
  /**
   * The markers a reasoning block in this type's content may come in, `<think>` first (its
   * `open` mode's): a server that leaves other families' markers in content names them here.
   */
  readonly reasoningMarkers?: readonly [ReasoningMarkers, ...ReasoningMarkers[]];
  /** Rewrite the client's request for this backend; `upstreamModel` is the id the server knows. */
  toUpstream(request: ChatRequest, backend: BackendInfo, upstreamModel: string): ToUpstreamResult;
  /** Read one SSE event of the upstream stream into neutral parts. */
  readEvent(event: SseEvent, ctx: StreamContext): Part[];
  /** Read one SSE event of a legacy completions (`text_completion`) stream into neutral parts. */
  readCompletionEvent(event: SseEvent, ctx: StreamContext): Part[];
  /** Read a non-2xx upstream answer (status, raw body text) into one SvirError (source `upstream`). */
  readError(
    status: number,
    body: string,
    ctx: { backend: string; retryAfter?: string | number; secrets?: readonly string[]; contextLength?: number },
  ): SvirError;
  /**
   * After a rejection before anything was generated: the body to send once more (an optional
   * field dropped, a supported effort chosen), or null. `sent` is the body that was rejected
   * (after earlier retries, the body of the last one).
   */
  planRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null;
  /**
   * The listed id that serves a model the client named another way the server also answers to
   * (Ollama: `llama3.2` is its `llama3.2:latest`), or undefined. Asked only when no listed id is
   * the one requested; absent: ids match exactly.
   */
  servedModelId?(requested: string, listed: readonly string[]): string | undefined;
  /** Where the server reports its context per request (llama.cpp's `/props`); absent: it has no such route. */
  readonly contextProbe?: ContextProbe;
  /** How the server counts a prompt's tokens with its own tokenizer; absent: it cannot, svir estimates. */
  tokenCounter?(input: TokenCountInput): TokenCountPlan;
}
