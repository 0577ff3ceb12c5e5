/**
 * Which backend serves which model. Each backend's models come from its config list, else from
 * its `GET /v1/models` (asked on first need, again once the list is older than
 * `modelRefreshMs`, and at once when a request names a model svir does not know yet). A model
 * nobody serves is svir's own 404: LM Studio would answer it with whatever model it has loaded.
 * An alias in the config stands for its model (pinned to one backend with `backend/model`).
 *
 * `resolve` answers with every candidate, best first (a backend known down last); the balancer
 * orders them further and the chat route fails over from one to the next. `report` is how a
 * request tells the registry a backend is up or down.
 */
import type { BackendInfo } from '../adapters/adapter.js';
import { getAdapter } from '../adapters/index.js';
import type { BackendType, Config } from '../config/schema.js';
import { SvirError } from '../errors.js';
import { normalizeBaseUrl } from '../config/normalize-base-url.js';
import type { DiscoveredModel, ModelListing } from '../upstream/fetch-model-list.js';
import { isChatModel } from './is-chat-model.js';

export interface RouteCandidate {
  backend: BackendInfo;
  /** The id to send upstream (the backend's own name for the model). */
  upstreamModel: string;
}

export type BackendStateName = 'up' | 'down' | 'unknown';

export interface BackendStatus {
  name: string;
  type: BackendType;
  baseUrl: string;
  /** `unknown` until its model list was asked for once. */
  state: BackendStateName;
  /** Where its models come from. */
  modelsFrom: 'config' | 'discovery';
  /** The models it serves as far as svir knows (configured, or last discovered). */
  models: string[];
  /** Why it is down, when it is. */
  reason?: string;
  /** The context a request gets, in tokens, when the server reported one (llama.cpp's `/props`). */
  serverContext?: number;
}

export interface ListedModel {
  id: string;
  /** The backend that serves it (the first one, when several do). */
  backend: string;
  /** Unix seconds. */
  created: number;
  /** For an alias: the model it stands for (`backend/model` when pinned to a backend). */
  aliasOf?: string;
}

export interface ModelRegistry {
  /** Every backend that can serve `model`, best first (up before down, then config order). */
  resolve(model: string): Promise<RouteCandidate[]>;
  /**
   * What `resolve` would answer at once, without asking any server: the candidates of a model
   * known now (a stale list is refreshed without making the request wait, as `resolve` does);
   * undefined when `resolve` has to ask or to refuse. Saves a request the promise and its turn.
   */
  resolveKnown?(model: string): RouteCandidate[] | undefined;
  /**
   * The chat models of every backend that answers (or has a config list), each id once, then
   * the aliases whose model is served. Discovered lists are filtered by name (is-chat-model.ts):
   * servers list embedding, speech and image models too. Configured lists are taken as written.
   */
  list(): Promise<ListedModel[]>;
  /** Asks every backend for its model list now (discovered lists replaced; configured ones probed). */
  refresh(): Promise<BackendStatus[]>;
  /** What is known now, without asking anyone. */
  status(): BackendStatus[];
  /** The backends as adapters see them, in config order. */
  backends(): readonly BackendInfo[];
  /**
   * What a request learned about a backend: reachable (a stream opened) or not (refused, connect
   * timed out). Failover and balancing then put a down backend last until it answers again.
   */
  report(backend: string, reachable: boolean, reason?: string): void;
}

export interface ModelRegistryDeps {
  /**
   * GET /v1/models of one backend; throws when it cannot be had. A listing also says whether
   * the list shows the backend taking images; a plain array says nothing about that.
   */
  listModels(backend: BackendInfo): Promise<DiscoveredModel[] | ModelListing>;
  /**
   * The context the server reports for a request (its adapter's `contextProbe`: llama.cpp's
   * `/props`), asked beside its model list; undefined when it has no such route or did not say.
   * Never throws: a server without it still serves.
   */
  probeContext?(backend: BackendInfo): Promise<number | undefined>;
  /** Milliseconds since the epoch. */
  now(): number;
}

interface Entry {
  info: BackendInfo;
  configured: readonly string[] | undefined;
  state: BackendStateName;
  discovered: DiscoveredModel[];
  /** The ids of `discovered`, made once per answer rather than per request. */
  discoveredIds: string[];
  /** When the last answer (or failure) came, ms; undefined: never asked. */
  checkedAt: number | undefined;
  reason: string | undefined;
  /** Why the last question failed, as svir would answer it (unreachable, refused key, ...). */
  failure: SvirError | undefined;
  inflight: Promise<void> | undefined;
}

/** An alias's target: `backend/model` pins a backend when the part before the first `/` names one. */
interface AliasTarget {
  backend: string | undefined;
  model: string;
}

function aliasTargets(config: Config): Map<string, AliasTarget> {
  const names = new Set(config.backends.map((backend) => backend.name));
  const targets = new Map<string, AliasTarget>();
  for (const [alias, target] of Object.entries(config.aliases)) {
    const slash = target.indexOf('/');
    const prefix = slash === -1 ? '' : target.slice(0, slash);
    targets.set(
      alias,
      slash > 0 && names.has(prefix) && slash < target.length - 1
        ? { backend: prefix, model: target.slice(slash + 1) }
        : { backend: undefined, model: target },
    );
  }
  return targets;
}

export function createModelRegistry(config: Config, deps: ModelRegistryDeps): ModelRegistry {
  const aliases = aliasTargets(config);
  const startedAt = Math.floor(deps.now() / 1000);
  const entries: Entry[] = config.backends.map((backend) => ({
    info: {
      config: backend,
      baseUrl: normalizeBaseUrl(backend.url),
      vision: backend.vision,
      reasoningField: config.reasoning.field,
    },
    configured: backend.models,
    state: 'unknown',
    discovered: [],
    discoveredIds: [],
    checkedAt: undefined,
    reason: undefined,
    failure: undefined,
    inflight: undefined,
  }));

  /** One question per backend at a time: concurrent callers share the answer. */
  function ask(entry: Entry): Promise<void> {
    entry.inflight ??= Promise.all([deps.listModels(entry.info), deps.probeContext?.(entry.info)])
      .then(
        ([answer, serverContext]) => {
          const listing: ModelListing = Array.isArray(answer) ? { models: answer, vision: undefined } : answer;
          entry.state = 'up';
          entry.discovered = listing.models;
          entry.discoveredIds = listing.models.map((m) => m.id);
          // What the server said of its context (docs/messages.md: max_tokens is lowered to fit).
          const contexts = new Map<string, number>();
          for (const model of listing.models) if (model.contextLength !== undefined) contexts.set(model.id, model.contextLength);
          entry.info.listedContexts = contexts;
          if (serverContext !== undefined) entry.info.serverContext = serverContext;
          entry.reason = undefined;
          entry.failure = undefined;
          // The config wins; otherwise what the server lists (llama.cpp without its projector
          // says text only), so an image is refused before it is sent. Asked for configured
          // lists too: refresh() probes every backend.
          entry.info.vision = entry.info.config.vision ?? listing.vision;
        },
        (err: unknown) => {
          // A down backend keeps the list it last gave: a request for its model then gets a
          // clear 503 (unreachable) rather than a 404 that says the model does not exist.
          entry.state = 'down';
          entry.reason = err instanceof Error ? err.message : String(err);
          entry.failure = err instanceof SvirError ? err : undefined;
        },
      )
      .finally(() => {
        entry.checkedAt = deps.now();
        entry.inflight = undefined;
      });
    return entry.inflight;
  }

  function isStale(entry: Entry): boolean {
    return entry.checkedAt === undefined || deps.now() - entry.checkedAt >= config.modelRefreshMs;
  }

  /** The backends whose models come from their server (the config's list never changes). */
  const discovering = entries.filter((e) => e.configured === undefined);

  /** Discovered lists that are missing or stale, asked again (configured lists need no asking). */
  async function refreshStale(): Promise<void> {
    await Promise.all(discovering.filter(isStale).map(ask));
  }

  /** What a backend serves, not to be changed: the config's list or the ids last discovered. */
  function servedBy(entry: Entry): readonly string[] {
    return entry.configured ?? entry.discoveredIds;
  }

  function modelsOf(entry: Entry): string[] {
    return [...servedBy(entry)];
  }

  /** Who serves a name: an alias stands for its target (and wins over a model of the same name). */
  function candidates(name: string): RouteCandidate[] {
    const alias = aliases.get(name);
    const model = alias?.model ?? name;
    const found: { entry: Entry; upstreamModel: string }[] = [];
    for (const entry of entries) {
      if (alias?.backend !== undefined && entry.info.config.name !== alias.backend) continue;
      const served = servedBy(entry);
      // The id as listed, else another the server answers to (its adapter says which).
      const upstreamModel = served.includes(model) ? model : getAdapter(entry.info.config.type).servedModelId?.(model, served);
      if (upstreamModel !== undefined) found.push({ entry, upstreamModel });
    }
    // Stable sort: backends that answered last time first, config order otherwise.
    const rank = (entry: Entry): number => (entry.state === 'down' ? 1 : 0);
    return found
      .sort((a, b) => rank(a.entry) - rank(b.entry))
      .map(({ entry, upstreamModel }) => ({ backend: entry.info, upstreamModel }));
  }

  function statusOf(entry: Entry): BackendStatus {
    const status: BackendStatus = {
      name: entry.info.config.name,
      type: entry.info.config.type,
      baseUrl: entry.info.baseUrl,
      state: entry.state,
      modelsFrom: entry.configured !== undefined ? 'config' : 'discovery',
      models: modelsOf(entry),
    };
    if (entry.reason !== undefined) status.reason = entry.reason;
    if (entry.info.serverContext !== undefined) status.serverContext = entry.info.serverContext;
    return status;
  }

  /** The candidates when every list was had once and one serves `model` (a stale one is refreshed meanwhile). */
  function known(model: string): RouteCandidate[] | undefined {
    if (discovering.some((e) => e.checkedAt === undefined)) return undefined;
    const found = candidates(model);
    if (found.length === 0) return undefined;
    // Known: serve now; a stale list is refreshed without making this request wait.
    if (discovering.some(isStale)) void refreshStale();
    return found;
  }

  return {
    resolveKnown: known,

    async resolve(model) {
      const now = known(model);
      if (now !== undefined) return now;
      // A backend whose list was never had may serve the model too (the same model on several
      // backends): ask those once before answering, or the first one known would take it all.
      const unasked = discovering.filter((e) => e.checkedAt === undefined);
      if (unasked.length > 0) await Promise.all(unasked.map(ask));
      let found = candidates(model);
      if (found.length > 0) {
        if (discovering.some(isStale)) void refreshStale();
        return found;
      }
      // Not known yet: the model may have been loaded since the last look. Ask every
      // discovering backend now, whether or not its list is stale.
      await Promise.all(discovering.map(ask));
      found = candidates(model);
      if (found.length > 0) return found;
      // No backend has a model list svir knows (none configured, none answered): "no such model"
      // would be a guess. Say why instead (unreachable: 503 with Retry-After; a refused key: 502),
      // so a client retries once the server is up. With any list known, a 404 is the truth.
      const failed = entries.find((e) => e.failure !== undefined);
      if (failed?.failure !== undefined && entries.every((e) => e.configured === undefined && e.state !== 'up')) {
        const cause = failed.failure;
        throw new SvirError(cause.code, {
          source: 'upstream',
          backend: failed.info.config.name,
          ...(cause.retryAfter === undefined ? {} : { retryAfter: cause.retryAfter }),
          message: `No backend could list its models, so svir cannot tell which one serves "${model}": ${cause.message}`,
          cause,
        });
      }
      const alias = aliases.get(model);
      const aliasNote =
        alias === undefined ? '' : ` (an alias of "${alias.backend === undefined ? '' : `${alias.backend}/`}${alias.model}", which is not served now)`;
      throw new SvirError('model_not_found', {
        param: 'model',
        message: `The model "${model}"${aliasNote} is not served by any backend of svir; GET /v1/models lists the models it knows.`,
      });
    },

    async list() {
      await refreshStale();
      const seen = new Set<string>();
      const listed: ListedModel[] = [];
      for (const entry of entries) {
        // A down backend's discovered models are left out; its configured ones stay listed.
        if (entry.configured === undefined && entry.state !== 'up') continue;
        const created = new Map(entry.discovered.map((m) => [m.id, m.created]));
        for (const id of modelsOf(entry)) {
          if (seen.has(id) || (entry.configured === undefined && !isChatModel(id))) continue;
          seen.add(id);
          listed.push({ id, backend: entry.info.config.name, created: created.get(id) ?? startedAt });
        }
      }
      for (const [alias, target] of aliases) {
        // Listed when a backend whose models are listed serves its model.
        const first = candidates(alias).find((c) => {
          const entry = entries.find((e) => e.info === c.backend);
          return entry !== undefined && (entry.configured !== undefined || entry.state === 'up');
        });
        if (first === undefined || seen.has(alias)) continue;
        seen.add(alias);
        const aliasOf = target.backend === undefined ? target.model : `${target.backend}/${target.model}`;
        listed.push({ id: alias, backend: first.backend.config.name, created: startedAt, aliasOf });
      }
      return listed;
    },

    async refresh() {
      await Promise.all(entries.map(ask));
      return entries.map(statusOf);
    },

    status() {
      return entries.map(statusOf);
    },

    backends() {
      return entries.map((entry) => entry.info);
    },

    report(backend, reachable, reason) {
      const entry = entries.find((e) => e.info.config.name === backend);
      if (entry === undefined) return;
      entry.state = reachable ? 'up' : 'down';
      entry.reason = reachable ? undefined : (reason ?? 'unreachable');
    },
  };
}
