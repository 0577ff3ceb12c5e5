/**
 * A named `tool_choice` → `required` with only that tool: LM Studio refuses the object form
 * with 400 and llama.cpp accepts it without keeping it, while both keep or take `required`
 * (docs/wire-protocol.md#tools). With one tool on offer, "call at least one" is "call this one".
 */
import { SvirError } from '../../errors.js';
import type { RequestRewrite } from './request-draft.js';
import { namedTool } from './named-tool.js';

export const namedToolChoiceToRequired: RequestRewrite = (draft, backend) => {
  const named = namedTool(draft.body, backend);
  if (named instanceof SvirError) return named;
  if (named === undefined) return draft;
  return {
    body: { ...draft.body, tools: [named.tool], tool_choice: 'required' },
    changes: [...draft.changes, `tool_choice function "${named.name}" sent as "required" with only that tool`],
  };
};
