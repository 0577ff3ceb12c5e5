/**
 * The reasoning markers llama.cpp's chat parsers leave in content when the server runs with
 * `--reasoning-format none` (docs/llamacpp-real.md, "Chat formats"): Qwen3, GLM, DeepSeek's
 * `<think>` tags; Mistral's `[THINK]` and `[/THINK]`; gpt-oss's analysis channel, opened by
 * `<|channel|>analysis<|message|>` and closed by `<|end|>` (the parser keeps the next message's
 * header, `<|start|>assistant<|channel|>final<|message|>`, out of content itself). Each opens a
 * reasoning block only at the very start of the answer, as `<think>` does.
 */
import type { ReasoningMarkers } from '../../normalize/think-tag-splitter.js';
import { THINK_TAGS } from '../../normalize/think-tag-splitter.js';

export const LLAMACPP_REASONING_MARKERS: readonly [ReasoningMarkers, ...ReasoningMarkers[]] = [
  THINK_TAGS,
  { open: '[THINK]', close: '[/THINK]' },
  { open: '<|channel|>analysis<|message|>', close: '<|end|>' },
];
