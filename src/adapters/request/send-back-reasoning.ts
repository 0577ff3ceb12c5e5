/**
 * Reasoning the client sends back on an assistant turn goes under the key the backend reads
 * (docs/wire-protocol.md#messages, #reasoning), and not at all to a backend whose reasoning arrives
 * in think tags (docs/wire-protocol.md#reasoning): there the template never saw it as a field, and
 * putting it back in the text would show it to the model as an answer. Clients send it under the
 * key svir gave it out on (`reasoning.field`) or under either carrier key.
 */
import { z } from 'zod';
import type { RequestRewrite } from './request-draft.js';

export type ReasoningKey = 'reasoning_content' | 'reasoning';

const text = z.string().min(1);

export function sendBackReasoning(key: ReasoningKey | null, noKeyWhy = 'the backend takes none'): RequestRewrite {
  return (draft, backend) => {
    const field = backend.reasoningField ?? 'reasoning_content';
    // Most requests send no reasoning back: then the request goes on as it is, uncopied.
    const sendsReasoning = draft.body.messages.some(
      (message) => message.role === 'assistant' && (field in message || 'reasoning_content' in message || 'reasoning' in message),
    );
    if (!sendsReasoning) return draft;
    const carriers = [...new Set([field, 'reasoning_content', 'reasoning'])];
    const target = backend.config.reasoningTags === 'open' ? null : key;
    let moved = false;
    let dropped = false;
    const messages = draft.body.messages.map((message) => {
      if (message.role !== 'assistant' || !carriers.some((carrier) => carrier in message)) return message;
      let reasoning: string | undefined;
      const rest: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(message)) {
        if (!carriers.includes(field)) {
          rest[field] = value;
          continue;
        }
        const parsed = text.safeParse(value);
        if (parsed.success && reasoning === undefined) {
          reasoning = parsed.data;
          if (target === null) dropped = true;
          else if (field !== target) moved = true;
        }
      }
      if (reasoning === undefined || target === null) return { ...rest, role: message.role };
      return { ...rest, role: message.role, [target]: reasoning };
    });
    const changes = [...draft.changes];
    if (moved && target !== null) changes.push(`reasoning sent back as ${target}`);
    if (dropped) {
      const why = backend.config.reasoningTags === 'open' ? 'its reasoning arrives in think tags' : noKeyWhy;
      changes.push(`reasoning in assistant turns not sent (${why})`);
    }
    return { body: { ...draft.body, messages }, changes };
  };
}
