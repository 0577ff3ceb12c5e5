/**
 * A chunk's identity → a `meta` part, when it has one. Empty strings and 0 are how some servers
 * (Azure's prompt-filter chunk) say "no identity"; an id longer than MAX_ID_LENGTH is taken as
 * absent (svir makes its own), so that a server cannot make svir repeat megabytes in each chunk.
 */
import type { Part } from './parts.js';

const MAX_ID_LENGTH = 256;

export function pushMeta(parts: Part[], id: string | null | undefined, created: number | null | undefined): void {
  const upstreamId = id !== undefined && id !== null && id.length > 0 && id.length <= MAX_ID_LENGTH ? id : undefined;
  const upstreamCreated = created !== undefined && created !== null && created > 0 ? created : undefined;
  if (upstreamId !== undefined || upstreamCreated !== undefined) {
    const meta: Part & { kind: 'meta' } = { kind: 'meta' };
    if (upstreamId !== undefined) meta.id = upstreamId;
    if (upstreamCreated !== undefined) meta.created = upstreamCreated;
    parts.push(meta);
  }
}
