import { SvirError } from '../../errors.js';
import type { BackendInfo } from '../adapter.js';
import type { RequestDraft, RequestRewrite } from './request-draft.js';

export type ApplyRewritesResult = { ok: true; draft: RequestDraft } | { ok: false; error: SvirError };

/** Runs the rewrites in order; the first one that refuses the request stops it. */
export function applyRewrites(
  draft: RequestDraft,
  backend: BackendInfo,
  rewrites: readonly RequestRewrite[],
): ApplyRewritesResult {
  let current = draft;
  for (const rewrite of rewrites) {
    const next = rewrite(current, backend);
    if (next instanceof SvirError) return { ok: false, error: next };
    current = next;
  }
  return { ok: true, draft: current };
}
