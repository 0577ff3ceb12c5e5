/**
 * Reads an AI SDK `fullStream` for its text and reasoning: the deltas joined, the part types in
 * the order they came (to check that reasoning ended before the text began), and a throw on an
 * error part, so a test that expects an answer fails with the error it got.
 */
export interface TextParts {
  text: string;
  reasoning: string;
  /** Every part's type, in order. */
  kinds: string[];
}

export async function readTextParts(parts: AsyncIterable<{ type: string; text?: unknown; error?: unknown }>): Promise<TextParts> {
  const read: TextParts = { text: '', reasoning: '', kinds: [] };
  for await (const part of parts) {
    read.kinds.push(part.type);
    if (part.type === 'text-delta' && typeof part.text === 'string') read.text += part.text;
    if (part.type === 'reasoning-delta' && typeof part.text === 'string') read.reasoning += part.text;
    if (part.type === 'error') throw new Error(`unexpected error part: ${JSON.stringify(part.error)}`);
  }
  return read;
}
