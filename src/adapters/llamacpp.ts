/**
 * llama.cpp's `llama-server` (docs/wire-protocol.md#tools, #messages, #optional-fields,
 * #errors-inside-the-stream): keeps `required` through its grammar but not a named function, so a
 * named function goes as `required` with only that tool; under `none` the model writes a call all
 * the same and the parser fails the stream, so `none` sends no tools; without its image projector
 * an image is a 500, so svir refuses it first when the backend is known to have none. With
 * `--reasoning-format none` its parsers leave each family's reasoning markers in content, not only
 * `<think>` (LLAMACPP_REASONING_MARKERS). Its error chunk, null first content, and
 * `exceed_context_size_error` are read by the generic reader and the error mapper.
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
import { llamacppTokenCount } from './models/llamacpp-token-count.js';
import { readPropsContext } from './models/read-props-context.js';
import { maxCompletionTokensToMaxTokens } from './request/max-completion-tokens-to-max-tokens.js';
import { namedToolChoiceToRequired } from './request/named-tool-choice-to-required.js';
import { rejectImagesUnless } from './request/reject-images-unless.js';
import { toolChoiceNoneDropsTools } from './request/tool-choice-none-drops-tools.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';
import { LLAMACPP_REASONING_MARKERS } from './stream/llamacpp-reasoning-markers.js';

export const llamacppAdapter: Adapter = {
  type: 'llamacpp',
  // Both routes (embeddings with `--embeddings`); its /v1/completions refuses `suffix` ("Unsupported param: suffix").
  legacy: { completions: { suffix: false, promptList: true }, embeddings: true },
  reasoningMarkers: LLAMACPP_REASONING_MARKERS,
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({
        reasoningKey: 'reasoning_content',
        // It maps `developer` to `system` itself, except for gpt-oss, whose format has the role.
        knowsDeveloperRole: true,
        contentChecks: [
          inlineTextFiles,
          // Unknown (no config, no model list yet): sent, and the server's 500 is read as a 400.
          rejectImagesUnless((backend) => backend.vision !== false, 'no image projector (mmproj) is loaded'),
        ],
      }),
      toolChoiceNoneDropsTools,
      namedToolChoiceToRequired,
      effortToTemplateKwargs(),
      maxCompletionTokensToMaxTokens,
      ...closingRewrites,
    ],
    bearerCall,
  ),
  readEvent: (event, ctx) => readOpenAIEvent(event, ctx),
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: planOptionalFieldRetry,
  // Its context per request (`-c` over `--parallel`), which its model list does not say.
  contextProbe: { path: 'props', read: readPropsContext },
  tokenCounter: llamacppTokenCount,
};
