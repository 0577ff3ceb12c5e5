/**
 * `item_reference` input items → the stored items they name. The AI SDK's default provider
 * (store on) sends a reference instead of the reasoning and text items of earlier steps. The
 * lookup is the store's; an unknown id is a 404 naming it.
 */
import { SvirError } from '../errors.js';
import type { InputItem, ItemReference } from './input-item.js';
import type { ReadItem } from './read-input-items.js';

export function isReference(item: ReadItem): item is ItemReference {
  return !('role' in item) && (item.type === 'item_reference' || item.type === null || item.type === undefined);
}

export function resolveInputItems(items: readonly ReadItem[], lookup: (id: string) => InputItem | undefined, prefix = 'input'): InputItem[] {
  return items.map((item, i) => {
    if (!isReference(item)) return item;
    const found = lookup(item.id);
    if (found === undefined) {
      throw new SvirError('item_not_found', {
        param: `${prefix}[${i}]`,
        message: `${prefix}[${i}] refers to the item "${item.id}", which svir does not hold (it was not stored, or was evicted or deleted, or svir restarted).`,
      });
    }
    return found;
  });
}
