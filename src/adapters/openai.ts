/**
 * `openai`: any OpenAI-compatible server. The request goes as the client sent it, with only the
 * rewrites every backend gets (docs/contract.md#adapters "all") and the JSON note OpenAI needs for
 * `json_object`; the stream is read as the protocol describes it and cleaned by the normalizer.
 */
import type { Adapter } from './adapter.js';
import { readCompletionEvent } from '../normalize/read-completion-event.js';
import { readOpenAIEvent } from '../normalize/read-openai-event.js';
import { readHttpError } from './read-http-error.js';
import { closingRewrites } from './request/closing-rewrites.js';
import { commonRewrites } from './request/common-rewrites.js';
import { bearerCall, bearerEndpoint, bearerModelsEndpoint } from './request/bearer-call.js';
import { effortToTemplateKwargs } from './request/effort-to-template-kwargs.js';
import { ensureJsonWord } from './request/ensure-json-word.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { firstRetryPlan } from './retry/first-retry-plan.js';
import { planMaxTokensRetry } from './retry/plan-max-tokens-retry.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';

export const openaiAdapter: Adapter = {
  type: 'openai',
  // Both routes, and `suffix` where the model takes it (the server says which).
  legacy: { completions: { suffix: true, promptList: true }, embeddings: true },
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({ reasoningKey: 'reasoning_content', knowsDeveloperRole: true }),
      effortToTemplateKwargs(),
      ensureJsonWord,
      ...closingRewrites,
    ],
    bearerCall,
  ),
  readEvent: (event, ctx) => readOpenAIEvent(event, ctx),
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: firstRetryPlan([planOptionalFieldRetry, planMaxTokensRetry]),
};
