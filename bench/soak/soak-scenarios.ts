/**
 * The soak's traffic mix. Each request names its scenario and a seed in its prompt
 * (`soak <scenario> <seed>`); the fake upstream reads them back to choose its answer, and the
 * client derives from the same seed what it must receive, so every answer can be checked by a
 * content hash without keeping anything per request.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { buildChatEvents, type ToolCallSpec } from '../../tests/faults/chat-events.js';
import type { Script } from '../../tests/faults/fault-upstream.js';
import { seededRandom } from '../seeded-random.js';

export const SCENARIOS = [
  'stream-text',
  'plain-text',
  'stream-tools',
  'plain-tools',
  'upstream-429',
  'upstream-500',
  'context-overflow',
  'in-stream-error',
  'reset-mid-stream',
  'cut-mid-stream',
  'client-abort',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Relative weights of the mix: mostly answers, with every kind of failure present. */
export const SCENARIO_WEIGHTS: Record<ScenarioName, number> = {
  'stream-text': 30,
  'plain-text': 15,
  'stream-tools': 10,
  'plain-tools': 5,
  'upstream-429': 6,
  'upstream-500': 6,
  'context-overflow': 6,
  'in-stream-error': 7,
  'reset-mid-stream': 3,
  'cut-mid-stream': 3,
  'client-abort': 9,
};

export type Expectation =
  | { kind: 'answer'; stream: boolean; contentSha256: string; toolsSha256: string; contentBytes: number }
  | { kind: 'error'; stream: boolean; status: number; code: string; inStream: boolean }
  | { kind: 'abort' };

/** Words that stress encoding: multi-byte UTF-8, emoji, quotes, backslashes, control characters. */
const WORDS = ['alpha', 'βeta', '日本語', '🙂', 'naïve', '"quoted"', 'back\\slash', 'new\nline', 'tab\t', 'zero', '∑', 'end.'];

export function soakText(seed: number): string[] {
  const random = seededRandom(seed);
  const pieces: string[] = [];
  const count = 5 + Math.floor(random() * 36);
  for (let i = 0; i < count; i++) {
    const words = 1 + Math.floor(random() * 4);
    let piece = '';
    for (let w = 0; w < words; w++) piece += `${WORDS[Math.floor(random() * WORDS.length)] ?? 'x'} `;
    pieces.push(piece);
  }
  return pieces;
}

export const SOAK_TOOLS = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { type: 'function', function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' } } } } },
];

export function soakToolCalls(seed: number): ToolCallSpec[] {
  const random = seededRandom(seed ^ 0x7001);
  const calls: ToolCallSpec[] = [];
  const count = 1 + Math.floor(random() * 2);
  for (let i = 0; i < count; i++) {
    const name = random() < 0.5 ? 'get_weather' : 'search_docs';
    const args = JSON.stringify(name === 'get_weather' ? { city: soakText(seed + i).join('') } : { query: `q${seed}-${i} ü` });
    const pieces: string[] = [];
    for (let at = 0; at < args.length; ) {
      const size = 1 + Math.floor(random() * 12);
      pieces.push(args.slice(at, at + size));
      at += size;
    }
    calls.push({ id: `call_${seed}_${i}`, name, argumentPieces: pieces });
  }
  return calls;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The tool calls as a client sees them, for hashing: names and whole arguments, in order. */
export function toolsDigest(calls: ReadonlyArray<{ name: string; arguments: string }>): string {
  return sha256(JSON.stringify(calls.map((call) => [call.name, call.arguments])));
}

export function soakPrompt(name: ScenarioName, seed: number): string {
  return `soak ${name} ${seed}`;
}

const promptBody = z.looseObject({
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })).min(1),
});

/** The scenario and seed a request carries, as the fake upstream reads them. */
export function readSoakPrompt(body: unknown): { name: ScenarioName; seed: number } | undefined {
  const parsed = promptBody.safeParse(body);
  if (!parsed.success) return undefined;
  const last = parsed.data.messages.at(-1)?.content;
  if (typeof last !== 'string') return undefined;
  const match = /^soak (\S+) (\d+)$/.exec(last);
  const name = SCENARIOS.find((scenario) => scenario === match?.[1]);
  if (name === undefined || match?.[2] === undefined) return undefined;
  return { name, seed: Number(match[2]) };
}

export function isStreamed(name: ScenarioName, seed: number): boolean {
  if (name === 'plain-text' || name === 'plain-tools') return false;
  if (name === 'upstream-429' || name === 'upstream-500' || name === 'context-overflow') return seed % 2 === 0;
  return true;
}

/** The client's request body. */
export function soakRequest(name: ScenarioName, seed: number, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: [
      { role: 'system', content: 'You are a soak test.' },
      { role: 'user', content: soakPrompt(name, seed) },
    ],
    stream: isStreamed(name, seed),
  };
  if (body.stream === true) body.stream_options = { include_usage: true };
  if (name === 'stream-tools' || name === 'plain-tools') {
    body.tools = SOAK_TOOLS;
    body.tool_choice = 'auto';
  }
  return body;
}

const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

/** What the fake upstream answers. */
export function soakScript(name: ScenarioName, seed: number): Script {
  const id = `chatcmpl-soak-${seed}`;
  switch (name) {
    case 'stream-text':
    case 'plain-text':
      return { events: buildChatEvents({ id, content: soakText(seed), usage }) };
    case 'stream-tools':
    case 'plain-tools':
      return { events: buildChatEvents({ id, content: [], toolCalls: soakToolCalls(seed), usage }) };
    case 'upstream-429':
      return { status: 429, headers: { 'retry-after': '1' }, body: '{"error":{"message":"Too many requests","type":"rate_limit"}}' };
    case 'upstream-500':
      return { status: 500, body: '{"error":{"message":"engine crashed","type":"server_error","code":500}}' };
    case 'context-overflow':
      return {
        status: 400,
        body: JSON.stringify({
          error: {
            message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens.",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        }),
      };
    case 'in-stream-error':
      return {
        events: [
          ...buildChatEvents({ id, content: soakText(seed).slice(0, 3) }).slice(0, -1),
          JSON.stringify({ error: { code: 500, message: 'generation died midway', type: 'server_error' } }),
        ],
        done: false,
      };
    case 'reset-mid-stream':
      // The pause lets svir read what came before: a reset makes the kernel drop unread bytes,
      // and then the right answer would be a 502 status instead of an error event.
      return {
        events: buildChatEvents({ id, content: soakText(seed), usage }),
        delayMs: 50,
        fault: { kind: 'reset', phase: 'mid-chunk', afterEvents: 3 },
      };
    case 'cut-mid-stream':
      // A clean close in the middle of an event: nothing is dropped, so no pause is needed.
      return { events: buildChatEvents({ id, content: soakText(seed), usage }), fault: { kind: 'close', phase: 'mid-chunk', afterEvents: 3 } };
    case 'client-abort':
      // Slow enough that the client's abort lands in the middle of the stream.
      return { events: buildChatEvents({ id, content: soakText(seed).concat(soakText(seed + 1)) }), delayMs: 20 };
  }
}

/** What the client must receive. */
export function soakExpectation(name: ScenarioName, seed: number): Expectation {
  const stream = isStreamed(name, seed);
  switch (name) {
    case 'stream-text':
    case 'plain-text': {
      const text = soakText(seed).join('');
      return { kind: 'answer', stream, contentSha256: sha256(text), toolsSha256: toolsDigest([]), contentBytes: Buffer.byteLength(text) };
    }
    case 'stream-tools':
    case 'plain-tools': {
      const calls = soakToolCalls(seed).map((call) => ({ name: call.name, arguments: call.argumentPieces.join('') }));
      return { kind: 'answer', stream, contentSha256: sha256(''), toolsSha256: toolsDigest(calls), contentBytes: 0 };
    }
    case 'upstream-429':
      return { kind: 'error', stream, status: 429, code: 'rate_limit_exceeded', inStream: false };
    case 'upstream-500':
      return { kind: 'error', stream, status: 502, code: 'upstream_error', inStream: false };
    case 'context-overflow':
      return { kind: 'error', stream, status: 400, code: 'context_length_exceeded', inStream: false };
    case 'in-stream-error':
      return { kind: 'error', stream, status: 200, code: 'upstream_error', inStream: true };
    case 'reset-mid-stream':
    case 'cut-mid-stream':
      return { kind: 'error', stream, status: 200, code: 'upstream_error', inStream: true };
    case 'client-abort':
      return { kind: 'abort' };
  }
}

/** Picks a scenario by weight. */
export function pickScenario(random: () => number): ScenarioName {
  const total = SCENARIOS.reduce((sum, name) => sum + SCENARIO_WEIGHTS[name], 0);
  let roll = random() * total;
  for (const name of SCENARIOS) {
    roll -= SCENARIO_WEIGHTS[name];
    if (roll < 0) return name;
  }
  return 'stream-text';
}
