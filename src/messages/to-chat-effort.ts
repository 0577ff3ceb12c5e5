/**
 * `thinking` and `output_config.effort` → the chat request's `reasoning_effort`
 * (docs/messages.md): an effort said wins; `thinking: {type: "disabled"}` turns reasoning off
 * (`none`); an `enabled` budget alone picks an effort by its size; `adaptive` alone leaves the
 * server's default. Anthropic's `max` is the chat dialect's `xhigh`. `thinking.display` (how
 * Claude's summaries are shown) means nothing to a local server and is dropped with a note.
 */
import type { z } from 'zod';
import type { ChatRequest } from '../requests/chat-request.js';
import type { messagesEffortSchema, thinkingSchema } from './messages-request.js';

type Effort = NonNullable<ChatRequest['reasoning_effort']>;

/** Budgets up to these sizes read as low, then medium; above, high. */
const LOW_BUDGET = 1024;
const MEDIUM_BUDGET = 8192;

export function toChatEffort(
  thinking: z.infer<typeof thinkingSchema> | null | undefined,
  effort: z.infer<typeof messagesEffortSchema> | null | undefined,
): { effort: Effort | undefined; notes: string[] } {
  const notes: string[] = [];
  if (thinking !== null && thinking !== undefined && thinking.type !== 'disabled' && thinking.display !== undefined && thinking.display !== null) {
    notes.push('thinking.display dropped');
  }
  if (thinking?.type === 'disabled') return { effort: 'none', notes };
  if (effort !== null && effort !== undefined) return { effort: effort === 'max' ? 'xhigh' : effort, notes };
  if (thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number') {
    const budget = thinking.budget_tokens;
    return { effort: budget <= LOW_BUDGET ? 'low' : budget <= MEDIUM_BUDGET ? 'medium' : 'high', notes };
  }
  return { effort: undefined, notes };
}
