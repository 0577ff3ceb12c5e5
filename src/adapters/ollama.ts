/**
 * Ollama's OpenAI layer at `/v1` (docs/ollama.md; read in its source, not in the reference). It
 * reads no `tool_choice`, so `none` sends no tools, a named function offers only that tool and
 * `required` is noted as not enforced; no `max_completion_tokens`, so the limit goes as
 * `max_tokens`; reasoning sent back only under `reasoning`; images only as data URLs of four
 * media types, so any other is svir's 400 first. It shortens a prompt over its context without
 * an error, so a request that may not fit is noted. Its reasoning arrives as `reasoning`, its
 * calls whole (all at `index: 0` before v0.20.6, and still for gpt-oss), read by the generic
 * reader and the normalizer's rule for a new call at an index in use. A model that cannot think
 * refuses an effort, and older releases refuse `minimal` and `xhigh`: both are retried once. A
 * model named without its tag is served by its listed `:latest`.
 */
import type { Adapter } from './adapter.js';
import { readCompletionEvent } from '../normalize/read-completion-event.js';
import { readOpenAIEvent } from '../normalize/read-openai-event.js';
import { readHttpError } from './read-http-error.js';
import { bearerCall, bearerEndpoint, bearerModelsEndpoint } from './request/bearer-call.js';
import { closingRewrites } from './request/closing-rewrites.js';
import { commonRewrites } from './request/common-rewrites.js';
import { dropUnreadToolChoice } from './request/drop-unread-tool-choice.js';
import { inlineTextFiles } from './request/inline-text-files.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { latestTagModelId } from './models/latest-tag-model-id.js';
import { maxCompletionTokensToMaxTokens } from './request/max-completion-tokens-to-max-tokens.js';
import { namedToolChoiceOffersOnly } from './request/named-tool-choice-offers-only.js';
import { noteContextRisk } from './request/note-context-risk.js';
import { requireDataUrlImages } from './request/require-data-url-images.js';
import { toolChoiceNoneDropsTools } from './request/tool-choice-none-drops-tools.js';
import { firstRetryPlan } from './retry/first-retry-plan.js';
import { planNoThinkingRetry } from './retry/plan-no-thinking-retry.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';
import { planReasoningValueRetry } from './retry/plan-reasoning-value-retry.js';

/** The smallest context Ollama picks by itself (4k, 32k or 256k by VRAM). */
export const OLLAMA_DEFAULT_CONTEXT = 4096;

/** The media types Ollama's `decodeImageURL` takes after `data:`. */
const OLLAMA_IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/jpg', 'image/png', 'image/webp'];

export const ollamaAdapter: Adapter = {
  type: 'ollama',
  // Both routes; `suffix` fills in the middle for a model with the `insert` capability, `prompt`
  // is one string only, and embeddings honour encoding_format (docs/ollama.md).
  legacy: { completions: { suffix: true, promptList: false }, embeddings: true },
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({ reasoningKey: 'reasoning', contentChecks: [inlineTextFiles] }),
      requireDataUrlImages(OLLAMA_IMAGE_TYPES, 'Ollama'),
      toolChoiceNoneDropsTools,
      namedToolChoiceOffersOnly,
      dropUnreadToolChoice('Ollama'),
      maxCompletionTokensToMaxTokens,
      noteContextRisk(OLLAMA_DEFAULT_CONTEXT, 'Ollama'),
      ...closingRewrites,
    ],
    bearerCall,
  ),
  readEvent: (event, ctx) => readOpenAIEvent(event, ctx),
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: firstRetryPlan([planNoThinkingRetry, planReasoningValueRetry, planOptionalFieldRetry]),
  servedModelId: latestTagModelId,
};
