/**
 * Whether the request as the server received it turned reasoning off: `reasoning_effort:
 * "none"`, or the template switch `chat_template_kwargs.enable_thinking: false` (or `thinking:
 * false`), or the backend's own template variable (`effortTemplateKey`) set to `"none"`. A chat
 * template that opens `<think>` itself does not open it then, so the server writes no
 * `</think>` and the whole answer is answer text (docs/contract.md#clean-dialect; config
 * `reasoningTags: open`). Read from the body actually sent: a retry that dropped the effort turned
 * reasoning back on.
 */
import { z } from 'zod';

const kwargsSchema = z.record(z.string(), z.unknown());

export function turnsReasoningOff(body: Record<string, unknown>, effortTemplateKey?: string): boolean {
  if (body.reasoning_effort === 'none') return true;
  const raw = body.chat_template_kwargs;
  // Asked of every stream, and most requests have no kwargs: no refused parse for those.
  if (typeof raw !== 'object' || raw === null) return false;
  const kwargs = kwargsSchema.safeParse(raw);
  if (!kwargs.success) return false;
  const { enable_thinking, thinking, reasoning_effort } = kwargs.data;
  if (enable_thinking === false || thinking === false || reasoning_effort === 'none') return true;
  if (effortTemplateKey === undefined) return false;
  const own = kwargs.data[effortTemplateKey];
  return own === 'none' || own === false;
}
