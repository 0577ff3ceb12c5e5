/**
 * `reasoning_effort` → `chat_template_kwargs` for a template that reads another variable:
 * mlx-lm hands the template only `chat_template_kwargs` (Qwen3.8's reads `enable_thinking`),
 * and llama.cpp's template for Muse Glimmer reads `reasoning_strength`
 * (docs/wire-protocol.md#optional-fields). The key is the backend's `effortTemplateKey`, else the
 * adapter's default. `enable_thinking` is a switch (`none` → false, any effort → true); any other
 * key gets the effort itself. The top-level field is not sent, since that server does nothing with
 * it.
 */
import { z } from 'zod';
import type { RequestRewrite } from './request-draft.js';
import { withFields } from './with-fields.js';

const kwargsSchema = z.record(z.string(), z.unknown());

export function effortToTemplateKwargs(defaultKey?: string): RequestRewrite {
  return (draft, backend) => {
    const key = backend.config.effortTemplateKey ?? defaultKey;
    const effort = draft.body.reasoning_effort;
    if (key === undefined || effort == null) return draft;
    const value = key === 'enable_thinking' ? effort !== 'none' : effort;
    const raw = draft.body.chat_template_kwargs;
    const existing = typeof raw === 'object' && raw !== null ? kwargsSchema.safeParse(raw) : undefined;
    // The top-level field is left out by the rest rather than deleted (a delete makes the body a
    // slow dictionary object for every later rewrite).
    const { reasoning_effort: _sentAsKwarg, ...rest } = draft.body;
    const body = withFields(rest, {
      chat_template_kwargs: withFields(existing?.success === true ? existing.data : {}, { [key]: value }),
    });
    return {
      body,
      changes: [...draft.changes, `reasoning_effort "${effort}" sent as chat_template_kwargs.${key}=${JSON.stringify(value)}`],
    };
  };
}
