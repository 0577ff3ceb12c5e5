/**
 * `POST /v1/messages/count_tokens`: `{"input_tokens": N}` for the request's system, messages
 * and tools together, as the chat request svir would send (docs/messages.md). From the
 * backend's own tokenizer where its server has one (its adapter's `tokenCounter`: llama.cpp's
 * `/apply-template` + `/tokenize`, vLLM's `/tokenize`), else svir's estimate, which errs high
 * (a count too low lets Claude Code overflow the context). `x-svir-token-count` says which.
 * Never queued: a count takes no generation slot, and Claude Code's /context sends two dozen
 * at once.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { estimatePromptTokens } from '../adapters/request/note-context-risk.js';
import { SvirError } from '../errors.js';
import { countTokensRequestSchema } from '../messages/messages-request.js';
import { toChatRequest } from '../messages/to-chat-request.js';
import { countServerTokens } from '../upstream/count-server-tokens.js';
import { invalidRequestError } from './invalid-request-error.js';
import type { RouteDeps } from './backend-route.js';

export type CountTokensDeps = Pick<RouteDeps, 'current' | 'pool' | 'getAdapter'>;

/** A tokenizer that has not answered by then is no quicker than the estimate is wrong. */
const TOKENIZER_TIMEOUT_MS = 10_000;

export interface TokenCount {
  tokens: number;
  by: 'tokenizer' | 'estimate';
  backend: string;
}

async function countTokens(deps: CountTokensDeps, request: FastifyRequest): Promise<TokenCount> {
  const parsed = countTokensRequestSchema.safeParse(request.body);
  if (!parsed.success) throw invalidRequestError(parsed.error);
  // The same translation as a generation (max_tokens is no part of the prompt).
  const { chat } = toChatRequest({ ...parsed.data, max_tokens: 1, stream: false });
  const { registry } = deps.current();
  const found = registry.resolveKnown?.(chat.model) ?? (await registry.resolve(chat.model));
  const candidate = found[0];
  if (candidate === undefined) throw new SvirError('model_not_found', { param: 'model' });
  const { backend, upstreamModel } = candidate;
  const tools = chat.tools ?? undefined;
  const plan = deps.getAdapter(backend.config.type).tokenCounter?.({ model: upstreamModel, messages: chat.messages, tools });
  if (plan !== undefined) {
    const counted = await countServerTokens(deps.pool.dispatcherFor(backend.config), backend, plan, { timeoutMs: TOKENIZER_TIMEOUT_MS });
    if (counted !== undefined) return { tokens: counted, by: 'tokenizer', backend: backend.config.name };
  }
  return { tokens: estimatePromptTokens(chat.messages, chat.tools), by: 'estimate', backend: backend.config.name };
}

export function registerCountTokensRoute(app: FastifyInstance, deps: CountTokensDeps): void {
  app.post('/v1/messages/count_tokens', async (request, reply) => {
    const count = await countTokens(deps, request);
    return reply
      .code(200)
      .header('x-svir-backend', count.backend)
      .header('x-svir-token-count', count.by)
      .type('application/json; charset=utf-8')
      .send({ input_tokens: count.tokens });
  });
}
