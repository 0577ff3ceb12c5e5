/**
 * LM Studio accepts `tool_choice: "required"` and does not keep it: asked to say hello with a
 * tool required, the model said hello and called nothing (docs/wire-protocol.md#tools). svir has no
 * way to force the call there, so the changes header says so whenever `required` goes out.
 */
import type { RequestRewrite } from './request-draft.js';

export function noteUnkeptRequired(server: string): RequestRewrite {
  return (draft) => {
    if (draft.body.tool_choice !== 'required') return draft;
    return { body: draft.body, changes: [...draft.changes, `tool_choice "required" may not be kept: ${server} does not enforce it`] };
  };
}
