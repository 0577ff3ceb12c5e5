/**
 * What the Responses route asks of a store (docs/responses.md, "The store"): the in-memory one
 * (create-response-store.ts, one process) or the Redis one (create-redis-response-store.ts,
 * shared by replicas). Every call is asynchronous, for the Redis one; a store that cannot answer
 * (Redis unreachable) rejects with SvirError `store_unavailable`, never answers "not found".
 *
 * A response is kept with the whole conversation before it (`prior`, references resolved), so
 * that it stays usable for as long as it is itself kept: deleting or evicting a response it
 * continued changes nothing for it.
 */
import type { InputItem } from '../responses/input-item.js';
import type { ResponseObject } from '../responses/response-object.js';

export interface StoreLimits {
  maxResponses: number;
  maxBytes: number;
}

export interface StoredResponse {
  response: ResponseObject;
  /** The conversation before this response's input: every earlier input and output, in order. */
  prior: InputItem[];
  /** The request's own input items, resolved (instructions are not carried over, as OpenAI does). */
  input: InputItem[];
  /** The output items, as input items for the next turn. */
  output: InputItem[];
}

export interface ResponseStore {
  /**
   * Keeps a response; false when it is not kept (larger than the bound for one response, or a
   * store that keeps none). Rejects with `store_unavailable` when the store cannot be reached.
   * `responseJson`, JSON.stringify(record.response) when the caller has made it already (the
   * Responses route sent it), spares making it again.
   */
  put(record: StoredResponse, responseJson?: string): Promise<boolean>;
  get(id: string): Promise<ResponseObject | undefined>;
  /** The response's own input items (not those of the responses it continued). */
  input(id: string): Promise<InputItem[] | undefined>;
  /** The conversation up to and including the response: every earlier input and output, in order. */
  history(id: string): Promise<InputItem[] | undefined>;
  /** The input and output items of kept responses, by the items' ids (those found). */
  items(ids: readonly string[]): Promise<Map<string, InputItem>>;
  delete(id: string): Promise<boolean>;
}

/** The byte length of JSON.stringify(record), from the response's JSON when the caller has it. */
export function recordBytes(record: StoredResponse, responseJson: string | undefined): number {
  if (responseJson === undefined) return Buffer.byteLength(JSON.stringify(record));
  return (
    RECORD_FRAME_BYTES +
    Buffer.byteLength(responseJson) +
    Buffer.byteLength(JSON.stringify(record.prior)) +
    Buffer.byteLength(JSON.stringify(record.input)) +
    Buffer.byteLength(JSON.stringify(record.output))
  );
}

/** The JSON of a record around its parts: `{"response":…,"prior":…,"input":…,"output":…}`. */
const RECORD_FRAME_BYTES = Buffer.byteLength('{"response":,"prior":,"input":,"output":}');

/** The id of an item that has one, for `item_reference`. */
export function itemIdOf(item: InputItem): string | undefined {
  return typeof item.id === 'string' && item.id.length > 0 ? item.id : undefined;
}
