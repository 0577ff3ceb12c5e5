/**
 * What buildServer can be given instead of the real thing (tests, the bench, embedders): logger,
 * clock, ids, upstream pool, registry, adapters. Each is the real one by default.
 */
import type { Adapter } from '../adapters/adapter.js';
import type { Env } from '../config/load-config.js';
import type { BackendType } from '../config/schema.js';
import type { LingerLimits } from '../http/linger-after-refusal.js';
import type { IdKind } from '../ids/create-id-maker.js';
import type { ResponsesIdKind } from '../ids/create-responses-id-maker.js';
import type { Logger } from '../logging/create-logger.js';
import type { ModelRegistry } from '../router/create-model-registry.js';
import type { UpstreamPool } from '../upstream/create-upstream-pool.js';

export interface ServerDeps {
  /** A pino logger; by default one at `server.logLevel` on stdout, with every key redacted. */
  logger?: Logger;
  /** ms since the epoch. */
  now?: () => number;
  makeId?: (kind: IdKind) => string;
  /** Ids of the Responses route: a response (`resp_…`) and its items (`msg_…`, `rs_…`, `fc_…`). */
  makeResponsesId?: (kind: ResponsesIdKind) => string;
  /** Ids of the Messages route's messages (`msg_…`). */
  makeMessageId?: () => string;
  /** Where `SVIR_API_KEYS` is read from; process.env by default. */
  env?: Env;
  pool?: UpstreamPool;
  registry?: ModelRegistry;
  getAdapter?: (type: BackendType) => Adapter;
  /** Monotonic ms for the durations in metrics; performance.now by default. */
  clock?: () => number;
  /** Also export Node's process metrics on /metrics (the CLI turns this on). */
  processMetrics?: boolean;
  /** Bounds of the read after an early refusal (tests make them small). */
  lingerLimits?: LingerLimits;
}
