/**
 * Upstream is always a stream with usage (docs/contract.md#shape): `stream: false` is folded by
 * svir, and the usage chunk is forwarded only when the client asked for it. Not a change of
 * meaning, so not listed in the changes header.
 */
import type { RequestRewrite } from './request-draft.js';
import { withFields } from './with-fields.js';

export const streamWithUsage: RequestRewrite = (draft) => ({
  body: withFields(draft.body, { stream: true, stream_options: withFields(draft.body.stream_options ?? {}, { include_usage: true }) }),
  changes: draft.changes,
});
