/**
 * Text-only array content → one string. Not every server accepts the array form
 * (docs/wire-protocol.md#messages), so the array is kept only where an image needs it. Parts are
 * joined with a newline, as vLLM's own template code joins them.
 */
import { mapChanged } from './map-changed.js';
import type { RequestRewrite } from './request-draft.js';
import { contentParts, textPartSchema } from './content-part.js';

function textOnly(content: unknown): string | undefined {
  const parts = contentParts(content);
  if (parts === undefined) return undefined;
  const texts: string[] = [];
  for (const part of parts) {
    const text = textPartSchema.safeParse(part);
    if (!text.success) return undefined;
    texts.push(text.data.text);
  }
  return texts.join('\n');
}

export const flattenTextOnlyContent: RequestRewrite = (draft) => {
  const messages = mapChanged(draft.body.messages, (message) => {
    const text = textOnly(message.content);
    if (text === undefined) return message;
    return { ...message, content: text };
  });
  if (messages === undefined) return draft;
  return {
    body: { ...draft.body, messages },
    changes: [...draft.changes, 'text-only array content sent as a string'],
  };
};
