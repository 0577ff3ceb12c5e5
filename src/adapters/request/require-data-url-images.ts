/**
 * For a server that reads images only as inline data URLs of a few media types (Ollama: `jpeg`,
 * `jpg`, `png`, `webp`, or a blank media type; an http(s) URL is its 400 "image URLs are not
 * currently supported", anything else "invalid image input"; docs/ollama.md): such an image is
 * svir's 400 `unsupported_content` before sending, saying why. Adapters do no I/O, so svir does
 * not fetch a URL into a data URL. Runs after `layoutImageContent` (images are `image_url`
 * objects by then).
 */
import { z } from 'zod';
import { SvirError } from '../../errors.js';
import type { RequestRewrite } from './request-draft.js';
import { contentParts } from './content-part.js';

const imageUrlPart = z.looseObject({ type: z.literal('image_url'), image_url: z.looseObject({ url: z.string() }) });

/** Why the server cannot read this image URL, or undefined when it can. */
function unreadable(url: string, mediaTypes: readonly string[], server: string): string | undefined {
  if (/^https?:\/\//i.test(url)) return `${server} takes images only as base64 data URLs, not by http(s) URL`;
  // The server matches the prefix exactly: `data:image/<type>;base64,` or `data:;base64,`.
  const prefix = /^data:(image\/[a-z0-9.+-]+)?;base64,/.exec(url);
  if (prefix === null) return `${server} takes images only as base64 data URLs`;
  const mediaType = prefix[1];
  if (mediaType !== undefined && !mediaTypes.includes(mediaType)) {
    return `${server} takes ${mediaTypes.join(', ')} images, not ${mediaType}`;
  }
  return undefined;
}

export function requireDataUrlImages(mediaTypes: readonly string[], server: string): RequestRewrite {
  return (draft, backend) => {
    for (const message of draft.body.messages) {
      const parts = contentParts(message.content);
      if (parts === undefined) continue;
      for (const part of parts) {
        const image = imageUrlPart.safeParse(part);
        if (!image.success) continue;
        const why = unreadable(image.data.image_url.url, mediaTypes, server);
        if (why === undefined) continue;
        return new SvirError('unsupported_content', {
          message: `Backend "${backend.config.name}" cannot take this image: ${why}.`,
          param: 'messages',
          backend: backend.config.name,
        });
      }
    }
    return draft;
  };
}
