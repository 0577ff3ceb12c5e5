/**
 * The JSON the live page reads (docs/live-page.md): the backends, the requests in flight, the
 * tokens-per-second chart and, in the full state, the last finished requests. Built only when
 * the page asks (GET /svir/api/state) or while its feed is open (once a second for all its
 * readers). What a request said or was answered is never part of it: a request is its route,
 * model, backend, status or error code, times, token counts and svir's notes of what it changed.
 */
import type { ActiveStreams } from '../lifecycle/active-streams.js';
import type { BackendQueues } from '../queue/backend-queues.js';
import type { BackendStateName, ModelRegistry } from '../router/create-model-registry.js';
import type { Monitor } from './create-monitor.js';
import { displayUrl } from './display-url.js';
import type { FinishedRequest } from './recent-requests.js';
import type { RateSeries, TokenSpan } from './token-rate-history.js';

export interface BackendView {
  name: string;
  type: string;
  /** Scheme, host, port and path: never a user name, password or query (display-url.ts). */
  url: string;
  state: BackendStateName;
  /** Why it is down, when it is. */
  reason?: string;
  models: string[];
  modelsFrom: 'config' | 'discovery';
  /** Requests holding a slot, and waiting for one, against the limits. */
  active: number;
  queued: number;
  maxConcurrent: number;
  maxQueue: number;
}

export interface OpenRequestView {
  route: string;
  model?: string;
  backend?: string;
  stream?: boolean;
  /** ms since the epoch. */
  startedAt: number;
  elapsedMs: number;
  /** Visible tokens so far (chunks that carried text, reasoning or a piece of a call: measure-speed.ts). */
  tokens: number;
  tokensPerSecond?: number;
}

export interface RequestView {
  id: string;
  route: string;
  /** ms since the epoch. */
  startedAt: number;
  model?: string;
  backend?: string;
  stream?: boolean;
  status: number;
  /** The error code the client got (or `client_closed`); the message is not kept here. */
  error?: string;
  ttftMs?: number;
  durationMs: number;
  tokensIn?: number;
  tokensOut?: number;
  finishReason?: string;
  /** What svir changed (the x-svir-changes phrases). */
  changes: string[];
  retried?: boolean;
  clientClosed?: boolean;
}

export interface LiveState {
  /** ms since the epoch. */
  now: number;
  backends: BackendView[];
  open: OpenRequestView[];
  rates: RateSeries;
}

export interface FullState extends LiveState {
  /** Oldest first. */
  recent: RequestView[];
}

export interface LiveStateSources {
  /** The registry in force (a reload swaps it). */
  registry(): Pick<ModelRegistry, 'status' | 'backends'>;
  queues: BackendQueues;
  streams: ActiveStreams;
  monitor: Monitor;
  /** ms since the epoch. */
  now(): number;
  /** The monotonic clock the request recorders read (their token times). */
  clock(): number;
}

export function requestView(request: FinishedRequest): RequestView {
  const { line } = request;
  const view: RequestView = {
    id: line.reqId,
    route: request.route,
    startedAt: request.startedAt,
    status: line.status,
    durationMs: line.durationMs,
    changes: line.changes ?? [],
  };
  if (line.model !== undefined) view.model = line.model;
  if (line.backend !== undefined) view.backend = line.backend;
  if (line.stream !== undefined) view.stream = line.stream;
  if (line.error !== undefined) view.error = line.error.code;
  if (line.ttftMs !== undefined) view.ttftMs = line.ttftMs;
  if (line.tokens !== undefined) {
    view.tokensIn = line.tokens.prompt;
    view.tokensOut = line.tokens.completion;
  }
  if (line.finishReason !== undefined) view.finishReason = line.finishReason;
  if (line.retried === true) view.retried = true;
  if (line.clientClosed === true) view.clientClosed = true;
  return view;
}

function backendViews(sources: LiveStateSources): BackendView[] {
  const registry = sources.registry();
  const configs = new Map(registry.backends().map((backend) => [backend.config.name, backend.config]));
  return registry.status().map((status) => {
    const stats = sources.queues.get(status.name)?.stats();
    const config = configs.get(status.name);
    const view: BackendView = {
      name: status.name,
      type: status.type,
      url: displayUrl(status.baseUrl),
      state: status.state,
      models: status.models,
      modelsFrom: status.modelsFrom,
      active: stats?.active ?? 0,
      queued: stats?.queued ?? 0,
      maxConcurrent: stats?.limits.maxConcurrent ?? config?.maxConcurrent ?? 0,
      maxQueue: stats?.limits.maxQueue ?? config?.maxQueue ?? 0,
    };
    if (status.reason !== undefined) view.reason = status.reason;
    return view;
  });
}

/** The requests in flight, and the spans of tokens they generated so far (for the chart). */
function openRequests(sources: LiveStateSources, now: number): { open: OpenRequestView[]; spans: TokenSpan[] } {
  // The recorders time tokens by the monotonic clock: their times are moved onto the epoch's.
  const clockNow = sources.clock();
  const open: OpenRequestView[] = [];
  const spans: TokenSpan[] = [];
  for (const request of sources.streams.values()) {
    const { summary } = request;
    const progress = request.recorder.progress();
    const view: OpenRequestView = {
      route: summary.route ?? 'unknown',
      startedAt: summary.startedAt,
      elapsedMs: now - summary.startedAt,
      tokens: progress?.tokens ?? 0,
    };
    if (summary.model !== undefined) view.model = summary.model;
    if (summary.backend !== undefined) view.backend = summary.backend;
    if (summary.stream !== undefined) view.stream = summary.stream;
    if (progress?.tokensPerSecond !== undefined) view.tokensPerSecond = Math.round(progress.tokensPerSecond * 10) / 10;
    open.push(view);
    if (summary.backend !== undefined && progress !== undefined && progress.firstAtMs !== undefined && progress.tokens > 0) {
      spans.push({ backend: summary.backend, tokens: progress.tokens, fromMs: now - (clockNow - progress.firstAtMs), toMs: now });
    }
  }
  return { open, spans };
}

export function liveState(sources: LiveStateSources): LiveState {
  const now = sources.now();
  const { open, spans } = openRequests(sources, now);
  return { now, backends: backendViews(sources), open, rates: sources.monitor.rates(now, spans) };
}

export function fullState(sources: LiveStateSources): FullState {
  const live = liveState(sources);
  return { now: live.now, backends: live.backends, open: live.open, rates: live.rates, recent: sources.monitor.recent().map(requestView) };
}
