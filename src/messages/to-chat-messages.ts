/**
 * The `system` and `messages` of a Messages request → clean chat messages (docs/messages.md).
 * - `system` (a string or text blocks) and every `role: "system"` message in `messages`
 *   (Claude Code sends one after the first user message) become ONE leading system message,
 *   their texts joined by a blank line: local chat templates refuse a system message anywhere
 *   but first (vLLM's finding: merged upward, models do not talk about it). Claude Code's
 *   `x-anthropic-billing-header` block is dropped: it is no instruction, and its per-request
 *   values would defeat the server's prompt cache.
 * - A user message's `tool_result` blocks become `tool` messages, in their order and first
 *   (right after the assistant message with the calls, as chat templates want them); its other
 *   blocks (text, images, text documents) follow as one user message.
 * - An assistant message becomes one assistant message: its text, its `tool_use` blocks as
 *   `tool_calls` (the input as its JSON), its `thinking` blocks as that turn's
 *   `reasoning_content`, which each adapter sends back under its backend's key or not at all.
 * What cannot reach a chat server (redacted thinking, server tool blocks, `cache_control`) is
 * dropped with a note; what svir cannot send at all (a PDF, a file id) is refused.
 */
import { z } from 'zod';
import { SvirError } from '../errors.js';

export type ChatMessageOut = Record<string, unknown> & { role: string };

export interface ChatMessages {
  messages: ChatMessageOut[];
  notes: string[];
}

const BILLING_HEADER = 'x-anthropic-billing-header:';

const messageSchema = z.looseObject({ role: z.enum(['user', 'assistant', 'system']), content: z.union([z.string(), z.array(z.unknown())]) });

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const imageSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  z.looseObject({ type: z.literal('file'), file_id: z.string() }),
]);
const imageBlock = z.looseObject({ type: z.literal('image'), source: imageSource });
const documentBlock = z.looseObject({
  type: z.literal('document'),
  source: z.looseObject({ type: z.string(), media_type: z.string().optional(), data: z.unknown().optional(), content: z.unknown().optional() }),
  title: z.string().nullish(),
});
const toolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.unknown())]).nullish(),
  is_error: z.boolean().nullish(),
});
const thinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const anyBlock = z.looseObject({ type: z.string().min(1) });

function invalid(param: string, message: string): SvirError {
  return new SvirError('invalid_request', { param, message: `${param}: ${message}` });
}

/** Each block's `cache_control` is said once: it means nothing to a local server. */
function noteCacheControl(block: Record<string, unknown>, notes: Set<string>): void {
  if (block['cache_control'] !== undefined) notes.add('cache_control dropped (the backend caches prompt prefixes itself)');
}

function parseBlock<T>(schema: z.ZodType<T>, block: unknown, where: string): T {
  const parsed = schema.safeParse(block);
  if (!parsed.success) throw invalid(where, `invalid block: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(block)'}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}

/** An image or a text document as a chat content part. */
function mediaPart(block: Record<string, unknown> & { type: string }, where: string): Record<string, unknown> {
  if (block.type === 'image') {
    const { source } = parseBlock(imageBlock, block, where);
    if (source.type === 'file') throw invalid(where, 'an image by file_id: svir keeps no files; send it inline (base64) or by URL.');
    const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
    return { type: 'image_url', image_url: { url } };
  }
  const document = parseBlock(documentBlock, block, where);
  const { source } = document;
  if (source.type === 'text' && typeof source.data === 'string') {
    return { type: 'text', text: typeof document.title === 'string' && document.title !== '' ? `${document.title}\n\n${source.data}` : source.data };
  }
  if (source.type === 'content' && typeof source.content === 'string') return { type: 'text', text: source.content };
  throw new SvirError('unsupported_content', {
    param: where,
    message: `${where}: a ${source.media_type ?? source.type} document: a chat server takes text and images only; send its text.`,
  });
}

/** A tool_result's content → the tool message's content: a string, or parts when it holds images. */
function toolResultContent(content: string | unknown[] | null | undefined, isError: boolean, where: string, notes: Set<string>): string | Record<string, unknown>[] {
  const prefix = isError ? 'Error: ' : '';
  if (content === null || content === undefined) return `${prefix}`;
  if (typeof content === 'string') return `${prefix}${content}`;
  const parts: Record<string, unknown>[] = [];
  content.forEach((raw, i) => {
    const at = `${where}.content[${i}]`;
    const block = parseBlock(anyBlock, raw, at);
    noteCacheControl(block, notes);
    if (block.type === 'text') parts.push({ type: 'text', text: parseBlock(textBlock, block, at).text });
    else if (block.type === 'image' || block.type === 'document') parts.push(mediaPart(block, at));
    else notes.add(`${block.type} blocks in a tool_result dropped`);
  });
  if (parts.every((part) => part['type'] === 'text')) return prefix + parts.map((part) => String(part['text'])).join('\n\n');
  if (isError) parts.unshift({ type: 'text', text: 'Error:' });
  return parts;
}

/** Text and images of a user message: a plain string when it is text alone. */
function userContent(parts: Record<string, unknown>[]): string | Record<string, unknown>[] {
  if (parts.every((part) => part['type'] === 'text')) return parts.map((part) => String(part['text'])).join('\n\n');
  return parts;
}

function systemTexts(content: string | unknown[], where: string, notes: Set<string>): string[] {
  if (typeof content === 'string') return content === '' ? [] : [content];
  const texts: string[] = [];
  content.forEach((raw, i) => {
    const at = `${where}[${i}]`;
    const block = parseBlock(anyBlock, raw, at);
    noteCacheControl(block, notes);
    if (block.type !== 'text') throw invalid(at, `a system prompt holds text blocks only, not ${block.type}.`);
    const { text } = parseBlock(textBlock, block, at);
    if (text.startsWith(BILLING_HEADER)) {
      notes.add('x-anthropic-billing-header system block dropped');
      return;
    }
    if (text !== '') texts.push(text);
  });
  return texts;
}

function userMessages(content: string | unknown[], where: string, notes: Set<string>): ChatMessageOut[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const results: ChatMessageOut[] = [];
  const parts: Record<string, unknown>[] = [];
  content.forEach((raw, i) => {
    const at = `${where}.content[${i}]`;
    const block = parseBlock(anyBlock, raw, at);
    noteCacheControl(block, notes);
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: parseBlock(textBlock, block, at).text });
        break;
      case 'image':
      case 'document':
        parts.push(mediaPart(block, at));
        break;
      case 'tool_result': {
        const result = parseBlock(toolResultBlock, block, at);
        results.push({ role: 'tool', tool_call_id: result.tool_use_id, content: toolResultContent(result.content, result.is_error === true, at, notes) });
        break;
      }
      default:
        notes.add(`${block.type} blocks dropped (a chat server has no such input)`);
    }
  });
  if (parts.length > 0) results.push({ role: 'user', content: userContent(parts) });
  return results;
}

function assistantMessage(content: string | unknown[], where: string, notes: Set<string>): ChatMessageOut | undefined {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  content.forEach((raw, i) => {
    const at = `${where}.content[${i}]`;
    const block = parseBlock(anyBlock, raw, at);
    noteCacheControl(block, notes);
    switch (block.type) {
      case 'text':
        texts.push(parseBlock(textBlock, block, at).text);
        break;
      case 'thinking':
        reasoning.push(parseBlock(thinkingBlock, block, at).thinking);
        break;
      case 'redacted_thinking':
        notes.add('redacted_thinking dropped (only Anthropic can read it)');
        break;
      case 'tool_use': {
        const call = parseBlock(toolUseBlock, block, at);
        calls.push({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } });
        break;
      }
      default:
        notes.add(`${block.type} blocks dropped (a chat server has no such input)`);
    }
  });
  if (texts.length === 0 && reasoning.length === 0 && calls.length === 0) return undefined;
  const message: ChatMessageOut = { role: 'assistant', content: texts.length === 0 ? null : texts.join('') };
  if (reasoning.length > 0) message['reasoning_content'] = reasoning.join('\n\n');
  if (calls.length > 0) message['tool_calls'] = calls;
  return message;
}

export function toChatMessages(system: string | readonly unknown[] | null | undefined, messages: readonly unknown[]): ChatMessages {
  const notes = new Set<string>();
  const systems: string[] = system === null || system === undefined ? [] : systemTexts(typeof system === 'string' ? system : [...system], 'system', notes);
  const out: ChatMessageOut[] = [];
  let folded = false;
  messages.forEach((raw, i) => {
    const where = `messages[${i}]`;
    const parsed = messageSchema.safeParse(raw);
    if (!parsed.success) throw invalid(where, 'a message has a role (user, assistant or system) and content (a string or blocks).');
    const { role, content } = parsed.data;
    if (role === 'system') {
      systems.push(...systemTexts(content, `${where}.content`, notes));
      if (i > 0) folded = true;
      return;
    }
    if (role === 'user') out.push(...userMessages(content, where, notes));
    else {
      const message = assistantMessage(content, where, notes);
      if (message !== undefined) out.push(message);
    }
  });
  if (folded) notes.add('system messages inside messages moved into the leading system message');
  if (systems.length > 0) out.unshift({ role: 'system', content: systems.join('\n\n') });
  return { messages: out, notes: [...notes] };
}
