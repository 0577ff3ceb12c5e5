/**
 * mlx-vlm (docs/wire-protocol.md#tools, #optional-fields, #chunks, #reasoning, #http-errors): keeps
 * `tool_choice` through the prompt and reads `reasoning_effort`, so both go as sent. It sends every
 * piece of reasoning twice in one delta (read once by the generic reader), every key of its message
 * type with `null`, `logprobs: null`, `usage: null` and `timings` (left unread); its `detail`
 * errors, string or list, and its context wordings are read by the error mapper.
 */
import type { Adapter } from './adapter.js';
import { readCompletionEvent } from '../normalize/read-completion-event.js';
import { readOpenAIEvent } from '../normalize/read-openai-event.js';
import { readHttpError } from './read-http-error.js';
import { bearerCall, bearerEndpoint, bearerModelsEndpoint } from './request/bearer-call.js';
import { closingRewrites } from './request/closing-rewrites.js';
import { commonRewrites } from './request/common-rewrites.js';
import { effortToTemplateKwargs } from './request/effort-to-template-kwargs.js';
import { inlineTextFiles } from './request/inline-text-files.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { maxCompletionTokensToMaxTokens } from './request/max-completion-tokens-to-max-tokens.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';

export const mlxVlmAdapter: Adapter = {
  type: 'mlx-vlm',
  // /v1/embeddings (floats whatever encoding_format says); no /v1/completions.
  legacy: { completions: null, embeddings: true },
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({ reasoningKey: 'reasoning_content', contentChecks: [inlineTextFiles] }),
      effortToTemplateKwargs(),
      maxCompletionTokensToMaxTokens,
      ...closingRewrites,
    ],
    bearerCall,
  ),
  // The generic reader reads a delta's reasoning under both keys as one text.
  readEvent: (event, ctx) => readOpenAIEvent(event, ctx),
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: planOptionalFieldRetry,
};
