import { contentParts, textPartSchema } from './content-part.js';

/** The text of a message's content, whether a string or an array of parts (other parts skipped). */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = contentParts(content);
  if (parts === undefined) return '';
  const texts: string[] = [];
  for (const part of parts) {
    const text = textPartSchema.safeParse(part);
    if (text.success) texts.push(text.data.text);
  }
  return texts.join('\n');
}
