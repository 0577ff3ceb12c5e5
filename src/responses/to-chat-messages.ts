/**
 * Resolved Responses input items → chat messages.
 * - `system` and `developer` messages become `system` messages (local chat templates know no
 *   `developer` role); consecutive ones are joined into one, as many templates take a single
 *   system message only.
 * - The assistant side of one turn (its reasoning, message text and function calls, up to the
 *   next user, system or tool item) becomes ONE assistant message: `content`, `tool_calls`, and
 *   the reasoning as `reasoning_content`, which each adapter then sends back under its backend's
 *   key, or not at all (send-back-reasoning.ts).
 * - `function_call_output` becomes a `tool` message.
 * Reasoning's `encrypted_content` is OpenAI's own ciphertext: no backend can read it, so it is
 * dropped with a note.
 */
import { SvirError } from '../errors.js';
import { flatToolName } from './flat-tool-name.js';
import type { ContentPart, InputItem, ReasoningItem } from './input-item.js';

export type ChatMessageOut = Record<string, unknown> & { role: string };

export interface ChatMessages {
  messages: ChatMessageOut[];
  notes: string[];
}

interface AssistantTurn {
  texts: string[];
  reasoning: string[];
  calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

function noFiles(where: string, what: string): SvirError {
  return new SvirError('invalid_request', {
    param: where,
    message: `Invalid request: ${where} refers to ${what}; svir keeps no files: send the image or file inline (a URL or a data URL).`,
  });
}

/** A part as a chat content part (user and tool messages). */
function toChatPart(part: ContentPart, where: string, notes: Set<string>): Record<string, unknown> {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image': {
      if (typeof part.image_url !== 'string') throw noFiles(where, 'an uploaded file (file_id)');
      const imageUrl: Record<string, unknown> = { url: part.image_url };
      if (part.detail === 'original') {
        imageUrl.detail = 'high';
        notes.add('input_image detail original sent as high');
      } else if (typeof part.detail === 'string') imageUrl.detail = part.detail;
      return { type: 'image_url', image_url: imageUrl };
    }
    case 'input_file': {
      if (typeof part.file_data !== 'string') throw noFiles(where, part.file_url ? 'a file by URL' : 'an uploaded file (file_id)');
      const file: Record<string, unknown> = { file_data: part.file_data };
      if (typeof part.filename === 'string') file.filename = part.filename;
      return { type: 'file', file };
    }
  }
}

/** Text of a system or assistant message: its text parts, one per line (as chat text parts are joined, flatten-text-only-content.ts). */
function textOf(content: string | ContentPart[], where: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type === 'input_text' || part.type === 'output_text') return part.text;
      if (part.type === 'refusal') return part.refusal;
      throw new SvirError('invalid_request', {
        param: `${where}.content[${i}]`,
        message: `Invalid request: ${where}.content[${i}]: a ${part.type} part can be sent in a user message or a tool output only.`,
      });
    })
    .join('\n');
}

function reasoningText(item: ReasoningItem): string {
  const content = item.content ?? [];
  if (content.length > 0) return content.map((part) => part.text).join('');
  return (item.summary ?? []).map((part) => part.text).join('\n\n');
}

export function toChatMessages(items: readonly InputItem[], prefix = 'input'): ChatMessages {
  const messages: ChatMessageOut[] = [];
  const notes = new Set<string>();
  let turn: AssistantTurn | undefined;

  const flush = (): void => {
    if (turn === undefined) return;
    const message: ChatMessageOut = { role: 'assistant', content: turn.texts.length > 0 ? turn.texts.join('\n\n') : null };
    if (turn.reasoning.length > 0) message.reasoning_content = turn.reasoning.join('\n\n');
    if (turn.calls.length > 0) message.tool_calls = turn.calls;
    // A turn of nothing but unreadable reasoning says nothing to the backend.
    if (message.content !== null || message.tool_calls !== undefined || message.reasoning_content !== undefined) messages.push(message);
    turn = undefined;
  };
  const assistant = (): AssistantTurn => (turn ??= { texts: [], reasoning: [], calls: [] });

  items.forEach((item, i) => {
    const where = `${prefix}[${i}]`;
    switch (item.type) {
      case 'function_call':
        assistant().calls.push({
          id: item.call_id,
          type: 'function',
          function: {
            name: typeof item.namespace === 'string' ? flatToolName(item.namespace, item.name) : item.name,
            arguments: item.arguments,
          },
        });
        return;
      case 'reasoning': {
        if (typeof item.encrypted_content === 'string' && item.encrypted_content.length > 0) {
          notes.add('reasoning encrypted_content dropped (no backend can read it)');
        }
        const text = reasoningText(item);
        if (text.length > 0) assistant().reasoning.push(text);
        return;
      }
      case 'function_call_output': {
        flush();
        const content =
          typeof item.output === 'string' ? item.output : item.output.map((part, j) => toChatPart(part, `${where}.output[${j}]`, notes));
        // role and content first, as the chat schema's parse orders a message's keys (the bytes sent upstream).
        messages.push({ role: 'tool', content, tool_call_id: item.call_id });
        return;
      }
      default:
        break;
    }
    // A message item (its `type` may be absent).
    if (item.role === 'assistant') {
      const text = textOf(item.content, where);
      if (text.length > 0) assistant().texts.push(text);
      return;
    }
    flush();
    if (item.role === 'system' || item.role === 'developer') {
      const text = textOf(item.content, where);
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === 'system' && typeof last.content === 'string') last.content = `${last.content}\n\n${text}`;
      else messages.push({ role: 'system', content: text });
      return;
    }
    const content =
      typeof item.content === 'string' ? item.content : item.content.map((part, j) => toChatPart(part, `${where}.content[${j}]`, notes));
    messages.push({ role: 'user', content });
  });
  flush();
  return { messages, notes: [...notes] };
}
