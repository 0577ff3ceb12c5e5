/**
 * LM Studio takes `json_schema` and `text` only and refuses `json_object` with 400
 * (docs/wire-protocol.md#structured-output); a schema of any object asks for the same thing.
 */
import type { RequestRewrite } from './request-draft.js';

export const jsonObjectToJsonSchema: RequestRewrite = (draft) => {
  if (draft.body.response_format?.type !== 'json_object') return draft;
  return {
    body: {
      ...draft.body,
      response_format: { type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } },
    },
    changes: [...draft.changes, 'response_format json_object sent as a json_schema of any object'],
  };
};
