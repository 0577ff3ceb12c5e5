/**
 * `tool_choice: "none"` → no tools at all: llama.cpp's model writes a call all the same and its
 * parser then fails the stream, and mlx-lm reads no `tool_choice` (docs/wire-protocol.md#tools). A
 * model that sees no tool cannot call one.
 */
import type { RequestRewrite } from './request-draft.js';

export const toolChoiceNoneDropsTools: RequestRewrite = (draft) => {
  if (draft.body.tool_choice !== 'none') return draft;
  const body = { ...draft.body };
  delete body.tool_choice;
  const hadTools = body.tools != null;
  delete body.tools;
  return {
    body,
    changes: hadTools ? [...draft.changes, 'tool_choice "none": tools not sent'] : draft.changes,
  };
};
