/**
 * The in-memory Responses store (one process): responses kept so that `previous_response_id`,
 * `item_reference` and `GET`/`DELETE /v1/responses/{id}` work. Bounded by count and by bytes
 * (the JSON size of each record, its whole conversation counted); the least recently used
 * response goes first. A restart forgets everything.
 *
 * Each response holds the conversation before it (response-store.ts): the array is its own, the
 * item objects are shared with the responses it continued, so a long chain costs one pointer per
 * earlier item in memory, while the byte bound counts the JSON the record would take written out
 * (what the Redis store writes), erring high.
 */
import type { InputItem } from '../responses/input-item.js';
import type { ResponseObject } from '../responses/response-object.js';
import { itemIdOf, recordBytes, type ResponseStore, type StoreLimits, type StoredResponse } from './response-store.js';

export type { StoreLimits, StoredResponse } from './response-store.js';

export interface MemoryResponseStore extends ResponseStore {
  setLimits(limits: StoreLimits): void;
  stats(): { responses: number; bytes: number };
}

interface Entry {
  record: StoredResponse;
  bytes: number;
  itemIds: string[];
}

export function createResponseStore(initial: StoreLimits): MemoryResponseStore {
  let limits = initial;
  /** Map order is recency: the first entry is the least recently used. */
  const entries = new Map<string, Entry>();
  const items = new Map<string, { responseId: string; item: InputItem }>();
  let bytes = 0;

  const touch = (id: string): Entry | undefined => {
    const entry = entries.get(id);
    if (entry === undefined) return undefined;
    entries.delete(id);
    entries.set(id, entry);
    return entry;
  };

  const remove = (id: string): boolean => {
    const entry = entries.get(id);
    if (entry === undefined) return false;
    entries.delete(id);
    bytes -= entry.bytes;
    for (const key of entry.itemIds) if (items.get(key)?.responseId === id) items.delete(key);
    return true;
  };

  const evict = (): void => {
    while (entries.size > limits.maxResponses || bytes > limits.maxBytes) {
      const oldest = entries.keys().next();
      if (oldest.done === true) return;
      remove(oldest.value);
    }
  };

  const put = (record: StoredResponse, responseJson: string | undefined): boolean => {
    const id = record.response.id;
    remove(id);
    if (limits.maxResponses === 0) return false;
    const size = recordBytes(record, responseJson);
    if (size > limits.maxBytes) return false;
    const itemIds: string[] = [];
    // Only the response's own items: an earlier response's items are found through it.
    for (const item of [...record.input, ...record.output]) {
      const key = itemIdOf(item);
      if (key === undefined) continue;
      items.set(key, { responseId: id, item });
      itemIds.push(key);
    }
    entries.set(id, { record, bytes: size, itemIds });
    bytes += size;
    evict();
    return entries.has(id);
  };

  const get = (id: string): ResponseObject | undefined => touch(id)?.record.response;

  const history = (id: string): InputItem[] | undefined => {
    const record = touch(id)?.record;
    return record === undefined ? undefined : [...record.prior, ...record.input, ...record.output];
  };

  const found = (ids: readonly string[]): Map<string, InputItem> => {
    const out = new Map<string, InputItem>();
    for (const id of ids) {
      const hit = items.get(id);
      if (hit === undefined) continue;
      touch(hit.responseId);
      out.set(id, hit.item);
    }
    return out;
  };

  return {
    put: (record, responseJson) => Promise.resolve(put(record, responseJson)),
    get: (id) => Promise.resolve(get(id)),
    input: (id) => Promise.resolve(touch(id)?.record.input),
    history: (id) => Promise.resolve(history(id)),
    items: (ids) => Promise.resolve(found(ids)),
    delete: (id) => Promise.resolve(remove(id)),
    setLimits(next) {
      limits = next;
      evict();
    },
    stats() {
      return { responses: entries.size, bytes };
    },
  };
}
