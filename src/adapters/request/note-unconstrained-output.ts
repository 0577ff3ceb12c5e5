/**
 * mlx-lm reads no `response_format` (asked for a schema, the model answered with a Markdown
 * table, docs/wire-protocol.md#structured-output). svir cannot constrain its sampling either, so it
 * says so in the changes header; the field is still sent, for a version that reads it.
 */
import type { RequestRewrite } from './request-draft.js';
import { isStructuredOutput } from './is-structured-output.js';

export function noteUnconstrainedOutput(server: string): RequestRewrite {
  return (draft) => {
    if (!isStructuredOutput(draft.body)) return draft;
    return {
      body: draft.body,
      changes: [...draft.changes, `response_format not enforced: ${server} cannot constrain output`],
    };
  };
}
