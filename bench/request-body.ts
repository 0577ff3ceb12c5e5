/**
 * A realistic streamed chat request of about 1 KB: a system prompt, a short conversation, one
 * declared tool, and usage asked for, as an agent or chat client sends it; and the same request
 * in the Responses API's shape.
 */
import { BENCH_MODEL } from './svir-config.js';

const SYSTEM =
  'You are a concise assistant for a small engineering team. Answer in plain English, cite the ' +
  'file you are talking about, and say so when you are not sure instead of guessing.';

const TURNS = [
  { role: 'user', content: 'Our reverse proxy adds latency to every streamed answer. Where should we look first?' },
  {
    role: 'assistant',
    content:
      'Start with the per-chunk path: how each server-sent event is parsed, rewritten and written back. ' +
      'Allocation per chunk and one write per event matter more than the connection set-up.',
  },
  { role: 'user', content: 'And how would we know that the proxy is close to the floor? Keep it short.' },
];

const TOOL = {
  name: 'lookup_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export function chatRequestBody(model = BENCH_MODEL): string {
  return JSON.stringify({
    model,
    stream: true,
    stream_options: { include_usage: true },
    temperature: 0.7,
    max_tokens: 512,
    messages: [{ role: 'system', content: SYSTEM }, ...TURNS],
    tools: [{ type: 'function', function: TOOL }],
  });
}

/**
 * The same conversation, tool and limits as a Messages request (Anthropic's API, as Claude
 * Code sends it: the system prompt apart, the tool's schema as `input_schema`).
 */
export function messagesRequestBody(model = BENCH_MODEL): string {
  return JSON.stringify({
    model,
    stream: true,
    temperature: 0.7,
    max_tokens: 512,
    system: SYSTEM,
    messages: TURNS,
    tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters }],
  });
}

/**
 * The same conversation, tool and limits as a Responses request. `store: false`: the route keeps
 * no copy of each answer, so what is measured is the hot path, not the response store.
 */
export function responsesRequestBody(model = BENCH_MODEL): string {
  return JSON.stringify({
    model,
    stream: true,
    store: false,
    temperature: 0.7,
    max_output_tokens: 512,
    instructions: SYSTEM,
    input: TURNS,
    tools: [{ type: 'function', ...TOOL }],
  });
}
