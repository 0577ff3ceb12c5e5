/**
 * The ids the `item_reference` items of a request name, for the store to fetch (one round trip
 * for a shared store) before resolve-input-items.ts resolves them.
 */
import type { ReadItem } from './read-input-items.js';
import { isReference } from './resolve-input-items.js';

export function referencedIds(items: readonly ReadItem[]): string[] {
  const ids: string[] = [];
  for (const item of items) if (isReference(item)) ids.push(item.id);
  return ids;
}
