/**
 * The request on its way to one backend: the body as it stands and what svir changed so far.
 * Each rewrite takes a draft and gives a new one (or the error that stops the request before
 * anything is sent), so an adapter is just the list of rewrites it picks.
 */
import type { ChatRequest } from '../../requests/chat-request.js';
import type { SvirError } from '../../errors.js';
import type { BackendInfo } from '../adapter.js';

export interface RequestDraft {
  body: ChatRequest;
  /** One short phrase per change, for the changes header (docs/contract.md#clean-dialect: nothing changed silently). */
  changes: readonly string[];
}

export type RequestRewrite = (draft: RequestDraft, backend: BackendInfo) => RequestDraft | SvirError;
