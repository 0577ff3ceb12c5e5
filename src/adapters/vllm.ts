/**
 * vLLM (docs/wire-protocol.md#tools, #optional-fields, #chunks, #tool-calls, #reasoning): reads
 * `reasoning` on assistant turns; hands `reasoning_effort` to the template, which may refuse a
 * value it does not name, so the 400 is retried once with the nearest supported value. Its
 * `prompt_token_ids`, `prompt_text` and `token_ids` are left unread; a named call it finishes with
 * `stop` is `tool_calls` by the normalizer's rule; without a reasoning parser its reasoning arrives
 * as content behind a `</think>` (config `reasoningTags: open`).
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
import { vllmTokenCount } from './models/vllm-token-count.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { firstRetryPlan } from './retry/first-retry-plan.js';
import { planEffortRetry } from './retry/plan-effort-retry.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';

export const vllmAdapter: Adapter = {
  type: 'vllm',
  // Both routes; its /v1/completions refuses `suffix` ("suffix is not currently supported").
  legacy: { completions: { suffix: false, promptList: true }, embeddings: true },
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({ reasoningKey: 'reasoning', contentChecks: [inlineTextFiles] }),
      effortToTemplateKwargs(),
      ...closingRewrites,
    ],
    bearerCall,
  ),
  readEvent: (event, ctx) => readOpenAIEvent(event, ctx),
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: firstRetryPlan([planEffortRetry, planOptionalFieldRetry]),
  tokenCounter: vllmTokenCount,
};
