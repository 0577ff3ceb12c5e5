/**
 * LM Studio holds a reasoning model's reasoning to the schema
 * (docs/wire-protocol.md#structured-output): with structured output asked, what it still sends as
 * reasoning is the JSON answer, and is read as content.
 */
import type { Part } from '../../normalize/parts.js';

export function reasoningAsContent(parts: readonly Part[]): Part[] {
  return parts.map((part) => (part.kind === 'reasoning' ? { kind: 'content', text: part.text } : part));
}
