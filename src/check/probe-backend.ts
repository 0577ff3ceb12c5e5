/**
 * `svir check` for one backend: is it reachable, does it take svir's key, which models does it
 * serve, and then one tiny request per feature, sent exactly as svir would send a client's
 * (through the backend's adapter, with svir's one retry), its stream read through the same
 * decoder and normalizer. So the table says what a client of svir gets, not what the raw
 * server does.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { BackendInfo } from '../adapters/adapter.js';
import type { StreamContext } from '../normalize/stream-context.js';
import { createStreamMemo } from '../normalize/stream-memo.js';
import { getAdapter } from '../adapters/index.js';
import { knownContextLength } from '../adapters/models/known-context-length.js';
import { reasoningTagsOf } from '../adapters/reasoning-tags-of.js';
import { turnsReasoningOff } from '../adapters/request/turns-reasoning-off.js';
import { chatRequestSchema, type ChatRequest } from '../requests/chat-request.js';
import type { BackendType } from '../config/schema.js';
import { SvirError } from '../errors.js';
import { createNormalizer } from '../normalize/normalizer.js';
import { createSseDecoder } from '../normalize/sse-decoder.js';
import { isChatModel } from '../router/is-chat-model.js';
import { fetchModelList } from '../upstream/fetch-model-list.js';
import { openChatStream } from '../upstream/open-chat-stream.js';
import { readCleanSteps } from '../upstream/read-clean-steps.js';
import { CHECK_PROBES, type CheckFeature, type CheckProbe } from './check-probes.js';

/**
 * - `works`: taken as sent (after svir's usual rewrites).
 * - `retried`: the server refused a field and svir's one retry without it (or with another
 *   value) went through: it works for clients, minus that field.
 * - `refused`: svir answers the client 400 itself, before sending (e.g. images to mlx-lm).
 * - `rejected`: the server answered with an error.
 * - `failed`: the stream started and broke, or nothing came in time.
 */
export type ProbeOutcome = 'works' | 'retried' | 'refused' | 'rejected' | 'failed';

export interface ProbeResult {
  feature: CheckFeature;
  outcome: ProbeOutcome;
  /** Why, for anything but `works`. */
  detail?: string;
  /** What svir changed in the request for this backend (rewrites, the retry). */
  changes: string[];
  /** Whether a usage chunk came back (asked for by the `stream_options` probe). */
  usage: boolean;
}

export type BackendState = 'up' | 'down' | 'auth-failed';

export interface BackendCheck {
  name: string;
  type: BackendType;
  baseUrl: string;
  state: BackendState;
  /** Why the backend is down or unusable. */
  reason?: string;
  modelsFrom: 'config' | 'discovery';
  models: string[];
  /** The model the feature probes asked for. */
  probeModel?: string;
  probes: ProbeResult[];
  /** A client can use it: reachable, key taken, a model, and a plain stream works. */
  usable: boolean;
}

export interface ProbeDeps {
  dispatcher: Dispatcher;
  /** Longest wait for each exchange (model list, each probe's whole stream). */
  timeoutMs: number;
  /** `reasoning.field` of the config. */
  reasoningField: string;
}

/** `sent`: the body the server took (after a retry, the retried one); `contextLength`: the backend's known context for the model. */
function streamContext(
  request: ChatRequest,
  backend: BackendInfo,
  reasoningField: string,
  sent: Record<string, unknown>,
  contextLength: number | undefined,
): StreamContext {
  const format = request.response_format?.type;
  return {
    model: request.model,
    backend: backend.config.name,
    toolNames: (request.tools ?? []).map((tool) => tool.function.name),
    includeUsage: request.stream_options?.include_usage === true,
    logprobs: request.logprobs === true,
    structuredOutput: format === 'json_schema' || format === 'json_object',
    reasoningTags: reasoningTagsOf(backend.config, getAdapter(backend.config.type)),
    reasoningOff: turnsReasoningOff(sent, backend.config.effortTemplateKey),
    reasoningField,
    memo: createStreamMemo(),
    ...(contextLength === undefined ? {} : { contextLength }),
  };
}

function explain(err: unknown, timeoutMs: number): string {
  if (err instanceof SvirError) return `${err.status} ${err.code}: ${err.message}`;
  if (err instanceof Error && err.name === 'TimeoutError') return `no complete answer within ${Math.round(timeoutMs / 1000)} s`;
  return err instanceof Error ? err.message : String(err);
}

async function runProbe(probe: CheckProbe, backend: BackendInfo, model: string, deps: ProbeDeps): Promise<ProbeResult> {
  const adapter = getAdapter(backend.config.type);
  const request = chatRequestSchema.parse(probe.request(model));
  const planned = adapter.toUpstream(request, backend, model);
  if (!planned.ok) {
    return { feature: probe.feature, outcome: 'refused', detail: explain(planned.error, deps.timeoutMs), changes: [], usage: false };
  }
  const signal = AbortSignal.timeout(deps.timeoutMs);
  const secrets = backend.config.apiKey === undefined ? [] : [backend.config.apiKey];
  let changes = [...planned.call.changes];
  try {
    const contextLength = knownContextLength(backend, model);
    const opened = await openChatStream({ dispatcher: deps.dispatcher, adapter, backend, call: planned.call, signal, secrets, contextLength });
    changes = opened.changes;
    const ctx = streamContext(request, backend, deps.reasoningField, opened.sentBody, contextLength);
    const normalizer = createNormalizer(ctx, { makeId: (kind) => `${kind}-${randomUUID()}`, now: () => Date.now() });
    let usage = false;
    for await (const step of readCleanSteps({ body: opened.body, adapter, ctx, decoder: createSseDecoder(), normalizer, signal })) {
      if (step.chunks.some((chunk) => chunk.usage !== undefined)) usage = true;
      if (step.error !== undefined) {
        return { feature: probe.feature, outcome: 'failed', detail: explain(step.error, deps.timeoutMs), changes, usage };
      }
    }
    if (opened.retried) {
      return { feature: probe.feature, outcome: 'retried', detail: changes.at(-1) ?? 'retried once', changes, usage };
    }
    return { feature: probe.feature, outcome: 'works', changes, usage };
  } catch (err) {
    const outcome: ProbeOutcome = err instanceof SvirError ? 'rejected' : 'failed';
    return { feature: probe.feature, outcome, detail: explain(err, deps.timeoutMs), changes, usage: false };
  }
}

export async function probeBackend(backend: BackendInfo, deps: ProbeDeps): Promise<BackendCheck> {
  const { config } = backend;
  const base = { name: config.name, type: config.type, baseUrl: backend.baseUrl };
  const configured = config.models;
  let discovered: string[] | undefined;
  try {
    discovered = (await fetchModelList(deps.dispatcher, backend, { timeoutMs: deps.timeoutMs })).models.map((model) => model.id);
  } catch (err) {
    const reason = explain(err, deps.timeoutMs);
    const code = err instanceof SvirError ? err.code : undefined;
    if (code === 'upstream_auth_failed') {
      return { ...base, state: 'auth-failed', reason, modelsFrom: configured ? 'config' : 'discovery', models: configured ?? [], probes: [], usable: false };
    }
    // A server without a model list is still usable when the config names its models.
    if (code !== 'upstream_error' || configured === undefined) {
      const state = code === 'upstream_error' ? 'up' : 'down';
      return { ...base, state, reason, modelsFrom: configured ? 'config' : 'discovery', models: configured ?? [], probes: [], usable: false };
    }
  }
  const models = configured ?? (discovered ?? []).filter(isChatModel);
  const modelsFrom = configured ? 'config' : 'discovery';
  const probeModel = models[0];
  if (probeModel === undefined) {
    return { ...base, state: 'up', reason: 'it lists no chat model (name them under models in the config)', modelsFrom, models, probes: [], usable: false };
  }
  const probes: ProbeResult[] = [];
  for (const probe of CHECK_PROBES) probes.push(await runProbe(probe, backend, probeModel, deps));
  const plain = probes.find((result) => result.feature === 'stream');
  const usable = plain !== undefined && (plain.outcome === 'works' || plain.outcome === 'retried');
  return {
    ...base,
    state: 'up',
    ...(usable ? {} : { reason: `a plain streamed request fails: ${plain?.detail ?? 'not tried'}` }),
    modelsFrom,
    models,
    probeModel,
    probes,
    usable,
  };
}
