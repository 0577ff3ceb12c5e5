/**
 * What svir changes in a client's request for one backend, read off its adapter with a few
 * typical requests (no network): the same phrases the `x-svir-changes` header carries, plus
 * what svir refuses before sending. Shown by `svir check` even for a backend that is down.
 */
import type { BackendInfo } from '../adapters/adapter.js';
import { getAdapter } from '../adapters/index.js';
import { chatRequestSchema } from '../requests/chat-request.js';

const ASK = { role: 'user', content: 'Open locker 7 and say when it is done.' };
const TOOL = {
  type: 'function',
  function: { name: 'open_locker', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
};

/** One typical request per kind of rewrite the adapters make. */
const SAMPLES: readonly { what: string; body: Record<string, unknown> }[] = [
  { what: 'a named tool_choice', body: { messages: [ASK], tools: [TOOL], tool_choice: { type: 'function', function: { name: 'open_locker' } } } },
  { what: 'tool_choice "none" with tools', body: { messages: [ASK], tools: [TOOL], tool_choice: 'none' } },
  { what: 'tool_choice without tools', body: { messages: [ASK], tool_choice: 'auto' } },
  { what: 'response_format json_object', body: { messages: [ASK], response_format: { type: 'json_object' } } },
  {
    what: 'response_format json_schema',
    body: {
      messages: [ASK],
      response_format: { type: 'json_schema', json_schema: { name: 'done', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
    },
  },
  { what: 'reasoning_effort', body: { messages: [ASK], reasoning_effort: 'low' } },
  {
    what: 'reasoning sent back',
    body: {
      messages: [ASK, { role: 'assistant', content: 'Done.', reasoning_content: 'The user wants locker 7.' }, { role: 'user', content: 'Thanks.' }],
    },
  },
  { what: 'text as an array of parts', body: { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello.' }] }] } },
  { what: 'max_completion_tokens', body: { messages: [ASK], max_completion_tokens: 64 } },
  {
    what: 'an image',
    body: {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    },
  },
];

/** Each distinct change, in the order first met, and each refusal as `<what>: refused (...)`. */
export function plannedRewrites(backend: BackendInfo, model = 'model'): string[] {
  const adapter = getAdapter(backend.config.type);
  const lines: string[] = [];
  for (const sample of SAMPLES) {
    const request = chatRequestSchema.parse({ model, stream: true, ...sample.body });
    const result = adapter.toUpstream(request, backend, model);
    if (!result.ok) {
      lines.push(`${sample.what}: refused with ${result.error.status} ${result.error.code} before sending`);
      continue;
    }
    for (const change of result.call.changes) if (!lines.includes(change)) lines.push(change);
  }
  return lines;
}
