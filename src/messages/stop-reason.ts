/**
 * The Messages `stop_reason` of an answer (docs/messages.md): `tool_use` whenever a tool_use
 * block went out, whatever the server's finish reason said (servers finish a call with `stop`,
 * and Claude Code runs the tool either way); `max_tokens` for a cut answer; `refusal` for a
 * content filter; else `end_turn`.
 */
import type { FinishReason } from '../normalize/clean-chunk.js';

export type StopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal';

export function stopReason(reason: FinishReason | undefined, calledTool: boolean): StopReason {
  if (calledTool) return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  if (reason === 'content_filter') return 'refusal';
  return 'end_turn';
}
