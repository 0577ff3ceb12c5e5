/**
 * mlx-lm (docs/wire-protocol.md#messages, #tools, #optional-fields, #structured-output,
 * #sse-framing, #usage): takes text only (an image is its 404), so svir refuses images first; reads
 * no `tool_choice`, so `none` sends no tools and a named function offers only that tool; reads no
 * `reasoning_effort`, so the effort goes to the template as `chat_template_kwargs`
 * (`enable_thinking` unless configured); reads no `response_format`, which the changes header says.
 * Its role on every delta, keepalive comments and usage chunk of `object: "chat.completion"` are
 * read by the decoder and the generic reader.
 */
import type { Adapter } from './adapter.js';
import { readCompletionEvent } from '../normalize/read-completion-event.js';
import { readOpenAIEvent } from '../normalize/read-openai-event.js';
import { readHttpError } from './read-http-error.js';
import { bearerCall, bearerEndpoint, bearerModelsEndpoint } from './request/bearer-call.js';
import { closingRewrites } from './request/closing-rewrites.js';
import { commonRewrites } from './request/common-rewrites.js';
import { dropUnreadToolChoice } from './request/drop-unread-tool-choice.js';
import { effortToTemplateKwargs } from './request/effort-to-template-kwargs.js';
import { inlineTextFiles } from './request/inline-text-files.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { maxCompletionTokensToMaxTokens } from './request/max-completion-tokens-to-max-tokens.js';
import { namedToolChoiceOffersOnly } from './request/named-tool-choice-offers-only.js';
import { noteUnconstrainedOutput } from './request/note-unconstrained-output.js';
import { rejectImagesUnless } from './request/reject-images-unless.js';
import { toolChoiceNoneDropsTools } from './request/tool-choice-none-drops-tools.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';

export const mlxLmAdapter: Adapter = {
  type: 'mlx-lm',
  // /v1/completions, which reads no `suffix` and tokenizes `prompt` as one string; no /v1/embeddings.
  legacy: { completions: { suffix: false, promptList: false }, embeddings: false },
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({
        reasoningKey: 'reasoning',
        contentChecks: [
          inlineTextFiles,
          // Only `vision: true` in the config (a newer mlx-lm) lets an image through.
          rejectImagesUnless((backend) => backend.config.vision === true, 'mlx-lm takes text only'),
        ],
      }),
      toolChoiceNoneDropsTools,
      namedToolChoiceOffersOnly,
      dropUnreadToolChoice('mlx-lm'),
      noteUnconstrainedOutput('mlx-lm'),
      effortToTemplateKwargs('enable_thinking'),
      maxCompletionTokensToMaxTokens,
      ...closingRewrites,
    ],
    bearerCall,
  ),
  readEvent: (event, ctx) => readOpenAIEvent(event, ctx),
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: planOptionalFieldRetry,
};
