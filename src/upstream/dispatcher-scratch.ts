/**
 * What a dispatcher of svir's pool (create-upstream-pool.ts) carries beside undici's API: scratch
 * space its requests reuse, one of each per backend, none shared by the process. A dispatcher
 * without them (a plain undici Agent) works the same, a little slower.
 */
import type { JoinBuffer } from './create-join-buffer.js';
import type { UrlMemo } from './create-url-memo.js';

export interface DispatcherScratch {
  readonly joinBuffer: JoinBuffer;
  readonly urlParts: UrlMemo;
}
