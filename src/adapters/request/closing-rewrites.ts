import type { RequestRewrite } from './request-draft.js';
import { streamWithUsage } from './stream-with-usage.js';

/** Last for every adapter: the upstream call is always a stream with usage (docs/contract.md#shape). */
export const closingRewrites: readonly RequestRewrite[] = [streamWithUsage];
