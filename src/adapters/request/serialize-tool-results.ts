/**
 * A tool result is a string (docs/wire-protocol.md#messages): a structured result a client hands
 * over as an object, a number or a boolean is serialized into the string, so no server has to guess
 * what to do with it. Text arrays are left to `flattenTextOnlyContent`.
 */
import { mapChanged } from './map-changed.js';
import type { RequestRewrite } from './request-draft.js';

export const serializeToolResults: RequestRewrite = (draft) => {
  const messages = mapChanged(draft.body.messages, (message) => {
    const content = message.content;
    if (message.role !== 'tool' || typeof content === 'string' || Array.isArray(content) || content === undefined || content === null) {
      return message;
    }
    return { ...message, content: JSON.stringify(content) };
  });
  if (messages === undefined) return draft;
  return { body: { ...draft.body, messages }, changes: [...draft.changes, 'structured tool results sent as JSON strings'] };
};
