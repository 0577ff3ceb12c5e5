/**
 * LM Studio (docs/wire-protocol.md#tools, #structured-output, #errors-inside-the-stream): takes
 * `tool_choice` strings only, so a named function goes as `required` with only that tool (which it
 * accepts without keeping, as the changes header says); takes `json_schema` and `text` only, so
 * `json_object` goes as a schema of any object; holds reasoning to the schema, so structured output
 * is asked with reasoning off, and what still arrives as reasoning is the answer. Its `event:
 * error` (a prompt over the context among them) is read by the generic reader and the error mapper.
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
import { jsonObjectToJsonSchema } from './request/json-object-to-json-schema.js';
import { makeToUpstream } from './request/make-to-upstream.js';
import { maxCompletionTokensToMaxTokens } from './request/max-completion-tokens-to-max-tokens.js';
import { namedToolChoiceToRequired } from './request/named-tool-choice-to-required.js';
import { noteUnkeptRequired } from './request/note-unkept-required.js';
import { structuredOutputReasoningOff } from './request/structured-output-reasoning-off.js';
import { planOptionalFieldRetry } from './retry/plan-optional-field-retry.js';
import { reasoningAsContent } from './stream/reasoning-as-content.js';

export const lmstudioAdapter: Adapter = {
  type: 'lmstudio',
  // Both routes; its /v1/completions documents no `suffix`, and ignores it.
  legacy: { completions: { suffix: false, promptList: true }, embeddings: true },
  endpoint: bearerEndpoint,
  modelsEndpoint: bearerModelsEndpoint,
  toUpstream: makeToUpstream(
    [
      ...commonRewrites({ reasoningKey: 'reasoning_content', contentChecks: [inlineTextFiles] }),
      namedToolChoiceToRequired,
      noteUnkeptRequired('LM Studio'),
      jsonObjectToJsonSchema,
      structuredOutputReasoningOff,
      effortToTemplateKwargs(),
      maxCompletionTokensToMaxTokens,
      ...closingRewrites,
    ],
    bearerCall,
  ),
  readEvent: (event, ctx) => {
    const parts = readOpenAIEvent(event, ctx);
    return ctx.structuredOutput ? reasoningAsContent(parts) : parts;
  },
  readCompletionEvent: (event, ctx) => readCompletionEvent(event, ctx),
  readError: readHttpError,
  planRetry: planOptionalFieldRetry,
};
