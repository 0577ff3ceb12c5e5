/**
 * For a server that reads no `tool_choice` at all (mlx-lm, docs/wire-protocol.md#tools): what is
 * left of it after the `none` and named rewrites is not sent. `auto` is the default anyway;
 * `required` cannot be kept, and the changes header says so.
 */
import type { RequestRewrite } from './request-draft.js';

export function dropUnreadToolChoice(server: string): RequestRewrite {
  return (draft) => {
    const choice = draft.body.tool_choice;
    if (choice == null) return draft;
    const body = { ...draft.body };
    delete body.tool_choice;
    const changes =
      choice === 'required' ? [...draft.changes, `tool_choice "required" not enforced: ${server} reads no tool_choice`] : draft.changes;
    return { body, changes };
  };
}
