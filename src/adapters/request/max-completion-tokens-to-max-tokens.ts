/**
 * Newer clients send `max_completion_tokens`; local servers read `max_tokens`. Where both are
 * given, the client's `max_completion_tokens` (OpenAI's current name) wins.
 */
import type { RequestRewrite } from './request-draft.js';
import { withFields } from './with-fields.js';

export const maxCompletionTokensToMaxTokens: RequestRewrite = (draft) => {
  const limit = draft.body.max_completion_tokens;
  if (limit == null) return draft;
  const body = withFields(draft.body, { max_tokens: limit });
  delete body.max_completion_tokens;
  return { body, changes: [...draft.changes, 'max_completion_tokens sent as max_tokens'] };
};
