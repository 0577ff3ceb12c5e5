/**
 * Checks a request's `Authorization` header against svir's own keys. The comparison runs over
 * SHA-256 digests with timingSafeEqual, so neither the time taken nor a length mismatch tells
 * an attacker how much of a key was right; every key is compared, with no early exit.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { SvirError } from '../errors.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Digests of the configured keys, computed once per server rather than per request. */
export interface ApiKeyDigests {
  readonly digests: readonly Buffer[];
}

export function digestApiKeys(keys: readonly string[]): ApiKeyDigests {
  return { digests: keys.map(digest) };
}

/** The token of `Bearer <token>` (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * null when the request may pass (a matching key, or no keys configured); otherwise the 401.
 * The error never repeats what the client sent.
 */
export function checkApiKey(header: string | undefined, keys: readonly string[] | ApiKeyDigests): SvirError | null {
  const { digests } = 'digests' in keys ? keys : digestApiKeys(keys);
  if (digests.length === 0) return null;
  const token = bearerToken(header);
  if (token === undefined) {
    return new SvirError('invalid_api_key', {
      message: 'Missing API key: send it as "Authorization: Bearer <key>".',
    });
  }
  const candidate = digest(token);
  let matched = false;
  for (const known of digests) {
    // Non-short-circuiting OR: every key is compared whatever the earlier ones said.
    matched = timingSafeEqual(candidate, known) || matched;
  }
  return matched ? null : new SvirError('invalid_api_key', { message: 'Invalid API key.' });
}
