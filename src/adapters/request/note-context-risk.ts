/**
 * A server that shortens a prompt over its context without an error (Ollama drops earlier
 * messages, then tokens, and answers 200; docs/ollama.md) cannot be asked to refuse instead, and
 * svir cannot count the model's tokens. So when a request may not fit, the changes header says
 * so. The estimate errs high on purpose (one token per 3 bytes of text, 768 per image, as Ollama
 * counts an image): the note means "may". The context is the backend's `contextLength`, else the
 * adapter's default.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../requests/chat-request.js';
import type { RequestRewrite } from './request-draft.js';
import { contentParts } from './content-part.js';

const BYTES_PER_TOKEN = 3;
const TOKENS_PER_IMAGE = 768;

const textPart = z.looseObject({ text: z.string() });
const imagePart = z.looseObject({ type: z.enum(['image_url', 'input_image', 'image']) });

function messageCost(message: ChatMessage): { bytes: number; images: number } {
  let bytes = 0;
  let images = 0;
  const { content, ...rest } = message;
  // Everything but the content (role, tool calls, reasoning sent back) is rendered too.
  bytes += Buffer.byteLength(JSON.stringify(rest));
  if (typeof content === 'string') return { bytes: bytes + Buffer.byteLength(content), images };
  const parts = contentParts(content);
  if (parts === undefined) return { bytes, images };
  for (const part of parts) {
    if (imagePart.safeParse(part).success) images += 1;
    else {
      const text = textPart.safeParse(part);
      if (text.success) bytes += Buffer.byteLength(text.data.text);
    }
  }
  return { bytes, images };
}

/** svir's high estimate of the prompt's tokens: messages and tool definitions. */
export function estimatePromptTokens(messages: readonly ChatMessage[], tools: unknown): number {
  let bytes = tools == null ? 0 : Buffer.byteLength(JSON.stringify(tools));
  let images = 0;
  for (const message of messages) {
    const cost = messageCost(message);
    bytes += cost.bytes;
    images += cost.images;
  }
  return Math.ceil(bytes / BYTES_PER_TOKEN) + images * TOKENS_PER_IMAGE;
}

export function noteContextRisk(defaultContextLength: number, server: string): RequestRewrite {
  return (draft, backend) => {
    const context = backend.config.contextLength ?? defaultContextLength;
    const estimate = estimatePromptTokens(draft.body.messages, draft.body.tools);
    if (estimate <= context) return draft;
    return {
      body: draft.body,
      changes: [
        ...draft.changes,
        `prompt of about ${estimate} tokens may exceed the backend's context of ${context} tokens: ${server} shortens it without an error`,
      ],
    };
  };
}
