/**
 * A `developer` message goes to a local server as `system`: its chat template may not know the
 * role, and Qwen3's templates (vLLM, Ollama, LM Studio, mlx) drop it without a word, so the
 * model never sees its instructions (pi sends its system prompt this way for a reasoning
 * model). OpenAI and Azure take the role as it is, and llama.cpp maps it itself (its own
 * workaround keeps it for gpt-oss, whose format has the role): their adapters leave it.
 */
import { mapChanged } from './map-changed.js';
import type { RequestRewrite } from './request-draft.js';

export const developerAsSystem: RequestRewrite = (draft) => {
  const messages = mapChanged(draft.body.messages, (message) => (message.role === 'developer' ? { ...message, role: 'system' } : message));
  if (messages === undefined) return draft;
  return { body: { ...draft.body, messages }, changes: [...draft.changes, 'developer messages sent as system (the template may not know the role)'] };
};
