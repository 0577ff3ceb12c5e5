import { z } from 'zod';
import type { ChatMessage } from '../../requests/chat-request.js';
import { contentParts } from './content-part.js';

const anyImagePart = z.looseObject({ type: z.enum(['image_url', 'input_image', 'image']) });

/** Whether any message carries an image part, well-formed or not. */
export function hasImage(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => {
    const parts = contentParts(message.content);
    return parts !== undefined && parts.some((part) => anyImagePart.safeParse(part).success);
  });
}
