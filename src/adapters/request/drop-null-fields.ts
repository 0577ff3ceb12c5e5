/**
 * A top-level `null` means "not given" in the protocol, but some servers' schemas refuse it
 * where they would take the field's absence; sending nothing says the same to every server.
 */
import type { RequestRewrite } from './request-draft.js';

export const dropNullFields: RequestRewrite = (draft) => {
  const entries = Object.entries(draft.body);
  if (!entries.some(([, value]) => value === null)) return draft;
  const body = { ...draft.body };
  for (const [field, value] of entries) if (value === null) delete body[field];
  return { body, changes: draft.changes };
};
