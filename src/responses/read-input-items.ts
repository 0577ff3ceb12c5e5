/**
 * `input` as a list → typed items, each read by its `type` (a message may leave the type out,
 * as `EasyInputMessage` does; a reference may too). A bad item is a 400 that names it
 * (`input[3]`); an item type a chat backend has no counterpart for (a built-in tool's call) is
 * refused by name rather than dropped, since dropping it would change the conversation.
 */
import type { z } from 'zod';
import { SvirError } from '../errors.js';
import {
  functionCallItemSchema,
  functionCallOutputItemSchema,
  itemReferenceSchema,
  messageItemSchema,
  reasoningItemSchema,
  type InputItem,
  type ItemReference,
} from './input-item.js';

export type ReadItem = InputItem | ItemReference;

function typeOf(raw: unknown): string | undefined {
  if (raw === null || typeof raw !== 'object' || !('type' in raw)) return undefined;
  return typeof raw.type === 'string' ? raw.type : undefined;
}

function hasKey(raw: unknown, key: string): boolean {
  return raw !== null && typeof raw === 'object' && key in raw;
}

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length === 0 ? '' : `${issue.path.join('.')}: `}${issue.message}`)
    .join('; ');
}

function read<T>(schema: z.ZodType<T>, raw: unknown, where: string): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new SvirError('invalid_request', { param: where, message: `Invalid request: ${where}: ${describe(parsed.error)}.` });
}

export function readInputItems(raw: readonly unknown[], prefix = 'input'): ReadItem[] {
  return raw.map((item, i) => {
    const where = `${prefix}[${i}]`;
    const type = typeOf(item);
    if (type === 'message' || (type === undefined && hasKey(item, 'role'))) return read(messageItemSchema, item, where);
    if (type === 'function_call') return read(functionCallItemSchema, item, where);
    if (type === 'function_call_output') return read(functionCallOutputItemSchema, item, where);
    if (type === 'reasoning') return read(reasoningItemSchema, item, where);
    if (type === 'item_reference' || (type === undefined && hasKey(item, 'id'))) return read(itemReferenceSchema, item, where);
    if (type === undefined) {
      throw new SvirError('invalid_request', { param: where, message: `Invalid request: ${where} has no type, role or id.` });
    }
    throw new SvirError('invalid_request', {
      param: where,
      message: `Invalid request: ${where} is a "${type}" item, which svir cannot send to a chat backend (only message, function_call, function_call_output, reasoning and item_reference items).`,
    });
  });
}
