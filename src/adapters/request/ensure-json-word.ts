/**
 * OpenAI (and Azure OpenAI) refuse `json_object` unless the word "JSON" appears somewhere in the
 * messages (docs/wire-protocol.md#structured-output); a short system note at the front says it
 * without touching the client's own messages.
 */
import type { RequestRewrite } from './request-draft.js';
import { messageText } from './message-text.js';

export const JSON_NOTE = 'Answer with a JSON object.';

export const ensureJsonWord: RequestRewrite = (draft) => {
  if (draft.body.response_format?.type !== 'json_object') return draft;
  if (draft.body.messages.some((message) => /json/i.test(messageText(message.content)))) return draft;
  return {
    body: { ...draft.body, messages: [{ role: 'system', content: JSON_NOTE }, ...draft.body.messages] },
    changes: [...draft.changes, 'system note asking for JSON added (json_object needs the word)'],
  };
};
