/**
 * How a backend's content is read for `<think>` tags: its config `reasoningTags`, else the
 * default of its type. A type whose models never write think tags (Azure OpenAI) reads content
 * as text, so an answer that explains think tags keeps every word; the others split a think
 * block that opens the answer.
 */
import type { BackendConfig } from '../config/schema.js';
import type { Adapter } from './adapter.js';
import type { ReasoningTags } from '../normalize/stream-context.js';

export function reasoningTagsOf(config: Pick<BackendConfig, 'reasoningTags'>, adapter: Pick<Adapter, 'defaultReasoningTags'>): ReasoningTags {
  return config.reasoningTags ?? adapter.defaultReasoningTags ?? 'auto';
}
