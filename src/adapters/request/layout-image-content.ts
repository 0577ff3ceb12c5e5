/**
 * A message with images goes as one text part first, then the images as `image_url` objects,
 * and no empty text part (docs/wire-protocol.md#messages): some templates place the text by the
 * first part only, and an empty text part is a turn of nothing. Parts of other types keep their
 * order after the images.
 */
import { mapChanged } from './map-changed.js';
import type { RequestRewrite } from './request-draft.js';
import { contentParts, imagePartSchema, textPartSchema } from './content-part.js';
import { sameJson } from './same-json.js';

function layout(content: unknown): unknown[] | undefined {
  const parts = contentParts(content);
  if (parts === undefined) return undefined;
  const texts: string[] = [];
  const images: unknown[] = [];
  const others: unknown[] = [];
  for (const part of parts) {
    const text = textPartSchema.safeParse(part);
    if (text.success) {
      if (text.data.text.length > 0) texts.push(text.data.text);
      continue;
    }
    const image = imagePartSchema.safeParse(part);
    if (image.success) {
      const imageUrl = image.data.image_url;
      images.push({ type: 'image_url', image_url: typeof imageUrl === 'string' ? { url: imageUrl } : imageUrl });
      continue;
    }
    others.push(part);
  }
  if (images.length === 0) return undefined;
  const text = texts.join('\n');
  return [...(text.length > 0 ? [{ type: 'text', text }] : []), ...images, ...others];
}

export const layoutImageContent: RequestRewrite = (draft) => {
  const messages = mapChanged(draft.body.messages, (message) => {
    const laidOut = layout(message.content);
    if (laidOut === undefined || sameJson(laidOut, message.content)) return message;
    return { ...message, content: laidOut };
  });
  if (messages === undefined) return draft;
  return {
    body: { ...draft.body, messages },
    changes: [...draft.changes, 'image content laid out as one text part then the images'],
  };
};
