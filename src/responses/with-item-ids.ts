/**
 * Gives every input item an id before it is stored, as OpenAI does: `GET .../input_items`
 * lists items by id (and pages by it), and an `item_reference` can then name any of them.
 */
import type { InputItem } from './input-item.js';

export type ItemIdKind = 'msg' | 'fc' | 'fco' | 'rs';

function kindOf(item: InputItem): ItemIdKind {
  if (item.type === 'function_call') return 'fc';
  if (item.type === 'function_call_output') return 'fco';
  if (item.type === 'reasoning') return 'rs';
  return 'msg';
}

export function withItemIds(items: readonly InputItem[], makeId: (kind: ItemIdKind) => string): InputItem[] {
  return items.map((item) => (typeof item.id === 'string' && item.id.length > 0 ? item : { ...item, id: makeId(kindOf(item)) }));
}
