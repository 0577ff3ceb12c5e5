/**
 * A named `tool_choice` on a server that cannot force a call (mlx-lm reads no `tool_choice`,
 * docs/wire-protocol.md#tools): only that tool is offered, so the model can call no other; the
 * field itself is not sent, since the server does nothing with it.
 */
import { SvirError } from '../../errors.js';
import type { RequestRewrite } from './request-draft.js';
import { namedTool } from './named-tool.js';

export const namedToolChoiceOffersOnly: RequestRewrite = (draft, backend) => {
  const named = namedTool(draft.body, backend);
  if (named instanceof SvirError) return named;
  if (named === undefined) return draft;
  const body = { ...draft.body, tools: [named.tool] };
  delete body.tool_choice;
  return {
    body,
    changes: [...draft.changes, `tool_choice function "${named.name}": only that tool offered (a call is not forced)`],
  };
};
