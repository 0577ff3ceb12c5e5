/**
 * A top-level `null` means "not given" in the protocol, but some servers' schemas refuse it
 * where they would take the field's absence; sending nothing says the same to every server.
 */
import type { RequestRewrite } from './request-draft.js';

export const dropNullFields: RequestRewrite = (draft) => {
  // Asked of every request, and most have no null: a plain loop, no list of entries made.
  let hasNull = false;
  for (const field in draft.body) {
    if (Object.hasOwn(draft.body, field) && draft.body[field] === null) {
      hasNull = true;
      break;
    }
  }
  if (!hasNull) return draft;
  const body = { ...draft.body };
  for (const [field, value] of Object.entries(draft.body)) if (value === null) delete body[field];
  return { body, changes: draft.changes };
};
