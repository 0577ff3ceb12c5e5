/**
 * The deterministic "model" behind the per-server fakes, and the request reading and response
 * writing they share. What the model says depends only on the request: asked about a locker
 * with a locker tool on offer it calls `open_locker({"number":4})`, asked to say hello it says
 * hello, asked to count it counts, asked for JSON it answers `{"number":4}`, and a prompt with
 * the word `svirword` is answered with that word (for Azure's blocklist). Each fake decides,
 * as its real server does, what it keeps of `tool_choice`, reasoning and the format.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';

const toolSchema = z.looseObject({ type: z.string().optional(), function: z.looseObject({ name: z.string() }) });

/** The fields the fakes read; anything else in a body is ignored, as the real servers do. */
export const fakeChatBodySchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })),
  tools: z.array(toolSchema).optional(),
  tool_choice: z.unknown().optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  reasoning_effort: z.string().optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).optional(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
  max_tokens: z.number().optional(),
  max_completion_tokens: z.number().optional(),
});

export type FakeChatBody = z.infer<typeof fakeChatBodySchema>;

const partSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = z.array(partSchema).safeParse(content);
  if (!parts.success) return '';
  return parts.data.map((part) => part.text ?? '').join('\n');
}

export function lastUserText(body: FakeChatBody): string {
  const users = body.messages.filter((message) => message.role === 'user');
  return messageText(users.at(-1)?.content);
}

/** All the text of the prompt: what a server counts against its context. */
export function promptText(body: FakeChatBody): string {
  return body.messages.map((message) => messageText(message.content)).join('\n');
}

export function hasNonTextPart(body: FakeChatBody): boolean {
  return body.messages.some((message) => {
    const parts = z.array(partSchema).safeParse(message.content);
    return parts.success && parts.data.some((part) => part.type !== 'text');
  });
}

export function hasImagePart(body: FakeChatBody): boolean {
  return body.messages.some((message) => {
    const parts = z.array(partSchema).safeParse(message.content);
    return parts.success && parts.data.some((part) => part.type === 'image_url');
  });
}

export function wantsUsage(body: FakeChatBody): boolean {
  return body.stream_options?.include_usage === true;
}

export function namedChoice(choice: unknown): string | undefined {
  const named = z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }).safeParse(choice);
  return named.success ? named.data.function.name : undefined;
}

export interface ModelAnswer {
  reasoning: string;
  /** The answer text, when the model answers in words. */
  text: string;
  /** The call it writes, when it calls a tool. */
  call?: { name: string; arguments: string };
}

export const LOCKER_ARGUMENTS = '{"number":4}';
export const JSON_ANSWER = '{"number":4}';
/** What a model asked about think tags says: it starts with one, and is the answer all the same. */
export const THINK_TAGS_ANSWER = '<think> and </think> mark where a model reasons; the answer follows them.';

/**
 * What the model would say, given what the server let it see: the tools it was offered, and
 * whether something (grammar, prompt instruction) makes it call one.
 */
export function modelAnswer(body: FakeChatBody, seen: { tools: readonly string[]; mustCall?: string | true }): ModelAnswer {
  const prompt = lastUserText(body).toLowerCase();
  if (seen.mustCall !== undefined) {
    const name = seen.mustCall === true ? seen.tools[0] : seen.mustCall;
    if (name !== undefined) {
      return { reasoning: `A call of ${name} is required.`, text: '', call: { name, arguments: LOCKER_ARGUMENTS } };
    }
  }
  if (prompt.includes('locker') && seen.tools.includes('open_locker')) {
    return { reasoning: 'The user wants locker 4 opened.', text: '', call: { name: 'open_locker', arguments: LOCKER_ARGUMENTS } };
  }
  if (prompt.includes('svirword')) return { reasoning: 'Repeat it.', text: Array(10).fill('svirword').join(' ') + '.' };
  if (prompt.includes('count')) {
    return { reasoning: 'The user wants me to count from one to five.', text: 'One, two, three, four, five.' };
  }
  if (prompt.includes('think tags')) return { reasoning: 'Explain the markers.', text: THINK_TAGS_ANSWER };
  if (prompt.includes('hello')) return { reasoning: 'A greeting is enough.', text: 'Hello!' };
  return { reasoning: 'Nothing special is asked.', text: 'OK.' };
}

/** Splits text into pieces of about `size` characters, as tokens would stream. */
export function pieces(text: string, size = 6): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function sseData(payload: string | Record<string, unknown>): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
}

/** A 200 event stream of these events, written in one go, then the end (or no end). */
export function writeEventStream(res: ServerResponse, events: readonly string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) res.write(event);
  res.end();
}

export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export function toolNames(body: FakeChatBody): string[] {
  return (body.tools ?? []).map((tool) => tool.function.name);
}
