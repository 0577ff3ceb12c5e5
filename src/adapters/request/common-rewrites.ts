/**
 * What every adapter does to a request (docs/contract.md#adapters "all"), in the order it must
 * happen: `developer` messages as `system` where the server may not know the role, then the
 * content (files to text, images laid out, text-only arrays and tool results to strings), then
 * reasoning sent back under the backend's key, then `tool_choice` without tools dropped.
 * Adapters put their own rewrites between these and `closingRewrites`.
 */
import type { RequestRewrite } from './request-draft.js';
import { developerAsSystem } from './developer-as-system.js';
import { dropNullFields } from './drop-null-fields.js';
import { dropOrphanToolChoice } from './drop-orphan-tool-choice.js';
import { flattenTextOnlyContent } from './flatten-text-only-content.js';
import { layoutImageContent } from './layout-image-content.js';
import { sendBackReasoning, type ReasoningKey } from './send-back-reasoning.js';
import { serializeToolResults } from './serialize-tool-results.js';

export interface CommonRewriteOptions {
  /** The key the backend reads reasoning under on assistant turns; null: it takes none. */
  reasoningKey: ReasoningKey | null;
  /** Why reasoning is not sent, when `reasoningKey` is null. */
  noReasoningWhy?: string;
  /** Rewrites that must see the content before it is laid out (files inlined, images refused). */
  contentChecks?: readonly RequestRewrite[];
  /** The server takes `developer` messages itself (OpenAI, Azure, llama.cpp); otherwise they go as `system`. */
  knowsDeveloperRole?: boolean;
}

export function commonRewrites(options: CommonRewriteOptions): RequestRewrite[] {
  return [
    dropNullFields,
    ...(options.knowsDeveloperRole === true ? [] : [developerAsSystem]),
    ...(options.contentChecks ?? []),
    layoutImageContent,
    flattenTextOnlyContent,
    serializeToolResults,
    sendBackReasoning(options.reasoningKey, options.noReasoningWhy),
    dropOrphanToolChoice,
  ];
}
