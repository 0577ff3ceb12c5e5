/**
 * `tool_choice` without `tools` is dropped everywhere (Azure was reported to reject it with 400,
 * docs/wire-protocol.md#tools), and so is an empty `tools` list, which says the same as none.
 */
import type { RequestRewrite } from './request-draft.js';

export const dropOrphanToolChoice: RequestRewrite = (draft) => {
  const { tools, tool_choice: toolChoice } = draft.body;
  // Nearly every request has neither to drop: it goes on uncopied.
  const emptyTools = Array.isArray(tools) && tools.length === 0;
  if (!emptyTools && (tools != null || toolChoice == null)) return draft;
  const body = { ...draft.body };
  const changes = [...draft.changes];
  if (Array.isArray(body.tools) && body.tools.length === 0) {
    delete body.tools;
    changes.push('empty tools dropped');
  }
  if (body.tools == null && body.tool_choice != null) {
    delete body.tool_choice;
    changes.push('tool_choice dropped: no tools');
  }
  return changes.length === draft.changes.length ? draft : { body, changes };
};
