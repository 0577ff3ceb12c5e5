/**
 * Anthropic's SDK reads the Messages stream svir writes (src/messages/messages-stream-sink.ts):
 * its own accumulator (`lib/MessageStream`) gives the message the fold gives.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { chunk, run, usageChunk } from './run-sinks.js';

describe('the Anthropic SDK reads the stream', () => {
  it('messages.stream().finalMessage() accumulates thinking, text and a tool call as the fold does', async () => {
    const { text, events, fold } = run([
      chunk({ role: 'assistant', reasoning_content: 'hmm' }),
      chunk({ content: 'Calling.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"c"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
    ]);
    const client = new Anthropic({
      apiKey: 'x',
      baseURL: 'http://127.0.0.1:1',
      fetch: async () => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    });
    const seen: string[] = [];
    const stream = client.messages.stream({ model: 'client-model', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
    stream.on('streamEvent', (event) => seen.push(event.type));
    const final = await stream.finalMessage();
    expect(seen).toEqual(events.map((event) => event.type));
    expect(final.content).toEqual(fold.message.content);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });
  });
});
