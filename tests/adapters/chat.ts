/** Client requests for adapter tests, validated as svir validates them. */
import { chatRequestSchema, type ChatRequest } from '../../src/requests/chat-request.js';

export function chat(fields: Record<string, unknown> = {}): ChatRequest {
  return chatRequestSchema.parse({ model: 'client-model', messages: [{ role: 'user', content: 'Say hello.' }], ...fields });
}

export const lockerTool = {
  type: 'function',
  function: {
    name: 'open_locker',
    description: 'Open a locker by number.',
    parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
  },
} as const;

export const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;

export const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The messages of an upstream body, read as the fake server would read them. */
export function sentMessages(body: Record<string, unknown>): unknown[] {
  const messages = body.messages;
  if (!Array.isArray(messages)) throw new Error('the upstream body has no messages array');
  return messages;
}
