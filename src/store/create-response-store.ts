/**
 * The Responses store: responses kept in memory so that `previous_response_id`, `item_reference`
 * and `GET`/`DELETE /v1/responses/{id}` work. Bounded by count and by bytes (the JSON size of
 * what is kept); the least recently used response goes first. A restart forgets everything.
 *
 * A response keeps its own new input items (references already resolved) and its output, plus
 * the id of the response it continued: the conversation before it is read by walking that chain,
 * so a long chain is not copied into every link.
 */
import type { InputItem } from '../responses/input-item.js';
import type { ResponseObject } from '../responses/response-object.js';

export interface StoreLimits {
  maxResponses: number;
  maxBytes: number;
}

export interface StoredResponse {
  response: ResponseObject;
  /** The request's own input items, resolved (instructions are not carried over, as OpenAI does). */
  input: InputItem[];
  /** The output items, as input items for the next turn. */
  output: InputItem[];
}

export interface ResponseStore {
  /**
   * Keeps a response; false when it alone is larger than the byte bound (nothing is kept then).
   * `responseJson`, JSON.stringify(record.response) when the caller has made it already (the
   * Responses route sent it), spares making it again to count the record's size.
   */
  put(record: StoredResponse, responseJson?: string): boolean;
  get(id: string): ResponseObject | undefined;
  /** The response's own input items (not those of the responses it continued). */
  input(id: string): InputItem[] | undefined;
  /** The conversation up to and including the response: every earlier input and output, in order. */
  history(id: string): InputItem[] | undefined;
  /** An input or output item of a kept response, by the item's id. */
  item(id: string): InputItem | undefined;
  delete(id: string): boolean;
  setLimits(limits: StoreLimits): void;
  stats(): { responses: number; bytes: number };
}

interface Entry {
  record: StoredResponse;
  bytes: number;
  itemIds: string[];
}

/** The JSON of a record around its three parts: `{"response":…,"input":…,"output":…}`. */
const RECORD_FRAME_BYTES = Buffer.byteLength('{"response":,"input":,"output":}');

/** The byte length of JSON.stringify(record). */
function recordBytes(record: StoredResponse, responseJson: string | undefined): number {
  if (responseJson === undefined) return Buffer.byteLength(JSON.stringify(record));
  return RECORD_FRAME_BYTES + Buffer.byteLength(responseJson) + Buffer.byteLength(JSON.stringify(record.input)) + Buffer.byteLength(JSON.stringify(record.output));
}

function itemId(item: InputItem): string | undefined {
  return typeof item.id === 'string' && item.id.length > 0 ? item.id : undefined;
}

export function createResponseStore(initial: StoreLimits): ResponseStore {
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

  return {
    put(record, responseJson) {
      const size = recordBytes(record, responseJson);
      const id = record.response.id;
      remove(id);
      if (size > limits.maxBytes || limits.maxResponses === 0) return false;
      const itemIds: string[] = [];
      for (const item of [...record.input, ...record.output]) {
        const key = itemId(item);
        if (key === undefined) continue;
        items.set(key, { responseId: id, item });
        itemIds.push(key);
      }
      entries.set(id, { record, bytes: size, itemIds });
      bytes += size;
      evict();
      return entries.has(id);
    },
    get(id) {
      return touch(id)?.record.response;
    },
    input(id) {
      return touch(id)?.record.input;
    },
    history(id) {
      const chain: StoredResponse[] = [];
      const seen = new Set<string>();
      let next: string | null = id;
      while (next !== null && !seen.has(next)) {
        seen.add(next);
        const entry = touch(next);
        if (entry === undefined) return undefined;
        chain.push(entry.record);
        next = entry.record.response.previous_response_id;
      }
      return chain.reverse().flatMap((record) => [...record.input, ...record.output]);
    },
    item(id) {
      const found = items.get(id);
      if (found === undefined) return undefined;
      touch(found.responseId);
      return found.item;
    },
    delete: remove,
    setLimits(next) {
      limits = next;
      evict();
    },
    stats() {
      return { responses: entries.size, bytes };
    },
  };
}
