/**
 * The Responses store in Redis, shared by every replica (README "Several replicas",
 * docs/responses.md "The store"). One hash per response, `<prefix>resp:<id>`, holding its
 * response object, the conversation before it, its own input and output (JSON each) and the ids
 * of its own items; one string per item, `<prefix>item:<id>`, holding the id of the response it
 * belongs to and the item, for `item_reference`. Every write is one Lua script (atomic, one
 * round trip), every read too.
 *
 * Bounds: each key lives `responseTtlSeconds`, and every read of a response (continuing it,
 * GET, its input items) or of an item extends it and its items again; a response larger than
 * `maxResponseBytes` is not kept. Past that, Redis's own `maxmemory` policy decides what goes
 * (`allkeys-lru` or `volatile-lru`: the README says so): since a response holds its whole
 * conversation, losing one key never breaks another response.
 */
import { z } from 'zod';
import { SvirError } from '../errors.js';
import {
  functionCallItemSchema,
  functionCallOutputItemSchema,
  messageItemSchema,
  reasoningItemSchema,
  type InputItem,
} from '../responses/input-item.js';
import type { ResponseObject } from '../responses/response-object.js';
import { itemIdOf, type ResponseStore } from '../store/response-store.js';
import { luaScript as script, type RedisLink } from './redis-link.js';

export interface RedisStoreOptions {
  keyPrefix: string;
  ttlSeconds: number;
  maxResponseBytes: number;
}

/** KEYS: the response's hash, then its items' keys. ARGV: ttl, response, prior, input, output, item ids (JSON), then each item's value. */
const PUT = script(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'response', ARGV[2], 'prior', ARGV[3], 'input', ARGV[4], 'output', ARGV[5], 'items', ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[1])
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[5 + i], 'EX', ARGV[1]) end
return 1
`);

/** KEYS: the response's hash. ARGV: ttl, the item key prefix, then the fields to read. Extends the response and its items. */
const READ = script(`
local values = redis.call('HMGET', KEYS[1], unpack(ARGV, 3))
if redis.call('EXPIRE', KEYS[1], ARGV[1]) == 1 then
  local items = redis.call('HGET', KEYS[1], 'items')
  if items then for _, id in ipairs(cjson.decode(items)) do redis.call('EXPIRE', ARGV[2] .. id, ARGV[1]) end end
end
return values
`);

/** KEYS: item keys. ARGV: ttl. Each item's value (or nil), each found one extended. */
const ITEMS = script(`
local out = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value then redis.call('EXPIRE', key, ARGV[1]) end
  out[i] = value
end
return out
`);

/** KEYS: the response's hash. ARGV: the item key prefix, the response id. Deletes it and the items it still owns. */
const DELETE = script(`
local items = redis.call('HGET', KEYS[1], 'items')
if not items then return 0 end
local owner = ARGV[2] .. '\\n'
for _, id in ipairs(cjson.decode(items)) do
  local key = ARGV[1] .. id
  local value = redis.call('GET', key)
  if value and string.sub(value, 1, #owner) == owner then redis.call('DEL', key) end
end
redis.call('DEL', KEYS[1])
return 1
`);

const inputItemSchema = z.union([messageItemSchema, functionCallItemSchema, functionCallOutputItemSchema, reasoningItemSchema]);
const itemsSchema = z.array(inputItemSchema);
/** What the store reads of a response object it sends back as it is. */
const responseObjectSchema = z.custom<ResponseObject>(
  (value) => z.looseObject({ id: z.string(), object: z.literal('response') }).safeParse(value).success,
);
const repliesSchema = z.array(z.string().nullable());

function corrupt(id: string): SvirError {
  return new SvirError('store_unavailable', { message: `The shared store holds an unreadable record for "${id}".` });
}

function parseJson<T>(text: string, schema: z.ZodType<T>, id: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(id);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw corrupt(id);
  return parsed.data;
}

export function createRedisResponseStore(link: RedisLink, options: RedisStoreOptions): ResponseStore {
  const responseKey = (id: string): string => `${options.keyPrefix}resp:${id}`;
  const itemPrefix = `${options.keyPrefix}item:`;
  const ttl = String(options.ttlSeconds);

  /** The fields of a response, or undefined when it is not kept. */
  const read = async (id: string, fields: readonly string[]): Promise<string[] | undefined> => {
    const replies = repliesSchema.safeParse(await link.evalScript(READ, [responseKey(id)], [ttl, itemPrefix, ...fields]));
    if (!replies.success) throw corrupt(id);
    const values: string[] = [];
    for (const value of replies.data) {
      if (value === null) return undefined;
      values.push(value);
    }
    return values;
  };

  return {
    async put(record, responseJson) {
      const id = record.response.id;
      const fields = [
        responseJson ?? JSON.stringify(record.response),
        JSON.stringify(record.prior),
        JSON.stringify(record.input),
        JSON.stringify(record.output),
      ];
      const ids: string[] = [];
      const values: string[] = [];
      for (const item of [...record.input, ...record.output]) {
        const itemId = itemIdOf(item);
        if (itemId === undefined) continue;
        ids.push(itemId);
        values.push(`${id}\n${JSON.stringify(item)}`);
      }
      let bytes = 0;
      for (const text of [...fields, ...values]) bytes += Buffer.byteLength(text);
      if (bytes > options.maxResponseBytes) return false;
      await link.evalScript(PUT, [responseKey(id), ...ids.map((itemId) => itemPrefix + itemId)], [ttl, ...fields, JSON.stringify(ids), ...values]);
      return true;
    },
    async get(id) {
      const values = await read(id, ['response']);
      return values === undefined ? undefined : parseJson(values[0] ?? '', responseObjectSchema, id);
    },
    async input(id) {
      const values = await read(id, ['input']);
      return values === undefined ? undefined : parseJson(values[0] ?? '', itemsSchema, id);
    },
    async history(id) {
      const values = await read(id, ['prior', 'input', 'output']);
      if (values === undefined) return undefined;
      return values.flatMap((text) => parseJson(text, itemsSchema, id));
    },
    async items(ids) {
      const found = new Map<string, InputItem>();
      if (ids.length === 0) return found;
      const replies = repliesSchema.safeParse(await link.evalScript(ITEMS, ids.map((itemId) => itemPrefix + itemId), [ttl]));
      if (!replies.success) throw corrupt(ids.join(', '));
      replies.data.forEach((value, i) => {
        const itemId = ids[i];
        if (value === null || itemId === undefined) return;
        const newline = value.indexOf('\n');
        found.set(itemId, parseJson(value.slice(newline + 1), inputItemSchema, itemId));
      });
      return found;
    },
    async delete(id) {
      return (await link.evalScript(DELETE, [responseKey(id)], [itemPrefix, id])) === 1;
    },
  };
}
