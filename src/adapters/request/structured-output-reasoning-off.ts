/**
 * LM Studio holds a reasoning model's reasoning to the schema from its first token: with
 * reasoning on, the whole JSON arrives as reasoning and the model answers as if it had not read
 * the question; with `reasoning_effort: "none"` the JSON arrives as the answer
 * (docs/wire-protocol.md#structured-output).
 */
import type { RequestRewrite } from './request-draft.js';
import { isStructuredOutput } from './is-structured-output.js';
import { withFields } from './with-fields.js';

export const structuredOutputReasoningOff: RequestRewrite = (draft) => {
  if (!isStructuredOutput(draft.body) || draft.body.reasoning_effort === 'none') return draft;
  const asked = draft.body.reasoning_effort;
  return {
    body: withFields(draft.body, { reasoning_effort: 'none' }),
    changes: [
      ...draft.changes,
      asked == null
        ? 'reasoning_effort "none" for structured output'
        : `reasoning_effort "${asked}" sent as "none" for structured output`,
    ],
  };
};
