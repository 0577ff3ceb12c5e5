/**
 * Newer clients send `max_completion_tokens`; local servers read `max_tokens`. Where both are
 * given, the client's `max_completion_tokens` (OpenAI's current name) wins.
 */
import type { RequestRewrite } from './request-draft.js';
import { withFields } from './with-fields.js';

export const maxCompletionTokensToMaxTokens: RequestRewrite = (draft) => {
  const limit = draft.body.max_completion_tokens;
  if (limit == null) return draft;
  // Left out by the rest, not deleted afterwards: a delete turns the body into a slow dictionary
  // object for every later rewrite and for JSON.stringify.
  const { max_completion_tokens: _sentAsMaxTokens, ...rest } = draft.body;
  const body = withFields(rest, { max_tokens: limit });
  return { body, changes: [...draft.changes, 'max_completion_tokens sent as max_tokens'] };
};
