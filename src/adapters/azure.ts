/**
 * Azure OpenAI (docs/wire-protocol.md#tools, #structured-output, #content-filtering, #http-errors):
 * its own route and `api-key` header, the deployment as the model; `json_object` needs the word
 * JSON in the messages; takes no reasoning on assistant turns. In the stream, the prompt filter's
 * report carries nothing of the answer, and a `filtered: true` verdict, on an ordinary chunk or on
 * an annotation, mid-stream or after the model's `stop`, blocked the answer (`content_filter`).
 * Annotations, offsets, `obfuscation`, `service_tier`, `system_fingerprint` and the model version
 * are left unread. Its models write no think tags, so content is not read for them unless the
 * config says `reasoningTags`.
 */
import type { Adapter } from './adapter.js';
import type { StreamContext } from '../normalize/stream-context.js';
import type { Part, SseEvent } from '../normalize/parts.js';
import { readCompletionEvent } from '../normalize/read-completion-event.js';
import { readOpenAIEvent } from '../normalize/read-openai-event.js';
import { readHttpError } from './read-http-error.js';
import { azureCall, azureEndpoint, azureModelsEndpoint } from './request/azure-call.js';
import { closingRewrites } from './request/closing-rewrites.js';
import { commonRewrites } from './request/common-rewrites.js';
import { ensureJsonWord } from './request/ensure-json-word.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { firstRetryPlan } from './retry/first-retry-plan.js';
import { planMaxTokensRetry } from './retry/plan-max-tokens-retry.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';
import { readAzureFilter } from './stream/read-azure-filter.js';

/** A stream reader with the content filter's report and verdicts read around it. */
function withFilterVerdict(read: (event: SseEvent, ctx: StreamContext) => Part[]): (event: SseEvent, ctx: StreamContext) => Part[] {
  return (event, ctx) => {
    const filter = event.event === undefined ? readAzureFilter(event.data) : { promptReport: false, filtered: false };
    const verdict: Part[] = filter.filtered ? [{ kind: 'filtered' }] : [];
    if (filter.promptReport) return verdict;
    return [...read(event, ctx), ...verdict];
  };
}

export const azureAdapter: Adapter = {
  type: 'azure',
  // Both routes on the deployment; `suffix` where the model takes it (the server says which).
  legacy: { completions: { suffix: true, promptList: true }, embeddings: true },
  endpoint: azureEndpoint,
  modelsEndpoint: azureModelsEndpoint,
  // Its models never write think tags: a `<think>` in an answer is what the model wrote.
  defaultReasoningTags: 'off',
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({ reasoningKey: null, noReasoningWhy: 'Azure OpenAI takes none', knowsDeveloperRole: true }),
      ensureJsonWord,
      ...closingRewrites,
    ],
    azureCall,
  ),
  readEvent: withFilterVerdict(readOpenAIEvent),
  readCompletionEvent: withFilterVerdict(readCompletionEvent),
  readError: readHttpError,
  planRetry: firstRetryPlan([planOptionalFieldRetry, planMaxTokensRetry]),
};
