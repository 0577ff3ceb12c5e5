/**
 * A realistic streamed chat request of about 1 KB: a system prompt, a short conversation, one
 * declared tool, and usage asked for, as an agent or chat client sends it.
 */
import { BENCH_MODEL } from './svir-config.js';

export function chatRequestBody(model = BENCH_MODEL): string {
  return JSON.stringify({
    model,
    stream: true,
    stream_options: { include_usage: true },
    temperature: 0.7,
    max_tokens: 512,
    messages: [
      {
        role: 'system',
        content:
          'You are a concise assistant for a small engineering team. Answer in plain English, cite the ' +
          'file you are talking about, and say so when you are not sure instead of guessing.',
      },
      { role: 'user', content: 'Our reverse proxy adds latency to every streamed answer. Where should we look first?' },
      {
        role: 'assistant',
        content:
          'Start with the per-chunk path: how each server-sent event is parsed, rewritten and written back. ' +
          'Allocation per chunk and one write per event matter more than the connection set-up.',
      },
      { role: 'user', content: 'And how would we know that the proxy is close to the floor? Keep it short.' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'lookup_weather',
          description: 'Current weather for a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
  });
}
