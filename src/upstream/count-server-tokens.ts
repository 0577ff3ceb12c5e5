/**
 * Runs a token count plan (src/adapters/models/token-count-plan.ts) against its backend: each
 * exchange through requestServerJson, outside the backend's generation queue (a tokenizer
 * answers at once, and Claude Code's /context sends two dozen counts in 60 ms). Undefined when
 * the server could not count (an older release, a template error, a timeout): the caller
 * estimates instead.
 */
import type { Dispatcher } from 'undici';
import type { BackendInfo } from '../adapters/adapter.js';
import type { TokenCountPlan } from '../adapters/models/token-count-plan.js';
import { requestServerJson } from './request-server-json.js';

/** A plan of more exchanges than this is a bug, not a count. */
const MAX_EXCHANGES = 4;

export async function countServerTokens(
  dispatcher: Dispatcher,
  backend: BackendInfo,
  plan: TokenCountPlan,
  options: { timeoutMs: number },
): Promise<number | undefined> {
  let step: TokenCountPlan = plan;
  for (let i = 0; i < MAX_EXCHANGES; i += 1) {
    let json: unknown;
    try {
      json = await requestServerJson(dispatcher, backend, { method: 'POST', path: step.path, body: step.body, timeoutMs: options.timeoutMs });
    } catch {
      return undefined;
    }
    const next = step.read(json);
    if (next === undefined || typeof next === 'number') return next;
    step = next;
  }
  return undefined;
}
