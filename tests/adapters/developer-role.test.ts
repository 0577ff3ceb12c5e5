/**
 * `developer` messages (pi's system prompt for a reasoning model) go as `system` to every
 * server whose template may not know the role, with a note; OpenAI, Azure and llama.cpp (which
 * maps it itself) get them as they are (src/adapters/request/developer-as-system.ts).
 */
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { developerAsSystem } from '../../src/adapters/request/developer-as-system.js';
import { BACKEND_TYPES, type BackendType } from '../../src/config/schema.js';
import { SvirError } from '../../src/errors.js';
import { chat, sentMessages } from './chat.js';
import { makeBackend } from './make-backend.js';

const NOTE = 'developer messages sent as system (the template may not know the role)';
const KEEPS: readonly BackendType[] = ['openai', 'azure', 'llamacpp'];

const withDeveloper = chat({
  messages: [
    { role: 'developer', content: 'You are pi. Be brief.' },
    { role: 'user', content: 'Say hello.' },
    { role: 'assistant', content: 'Hello.' },
    { role: 'developer', content: [{ type: 'text', text: 'Now in French.' }] },
    { role: 'user', content: 'Again.' },
  ],
});

describe.each(BACKEND_TYPES.map((type) => [type]))('developer messages to %s', (type) => {
  const backend = makeBackend(type);
  const result = getAdapter(type).toUpstream(withDeveloper, backend, 'upstream-model');
  if (!result.ok) throw result.error;
  const roles = sentMessages(result.call.body).map((message) => (message as { role: string }).role);

  if (KEEPS.includes(type)) {
    it('keeps the role: the server takes it', () => {
      expect(roles).toEqual(['developer', 'user', 'assistant', 'developer', 'user']);
      expect(result.call.changes).not.toContain(NOTE);
    });
  } else {
    it('sends them as system, each where it was, with a note', () => {
      expect(roles).toEqual(['system', 'user', 'assistant', 'system', 'user']);
      expect(result.call.changes).toContain(NOTE);
      const first = sentMessages(result.call.body)[0] as { content: unknown };
      expect(first.content).toBe('You are pi. Be brief.');
    });
  }
});

describe('developerAsSystem', () => {
  it('hands a request without developer messages on as it is, uncopied and unnoted', () => {
    const draft = { body: chat({ messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }] }), changes: [] };
    expect(developerAsSystem(draft, makeBackend('vllm'))).toBe(draft);
  });

  it('keeps every other key of the message', () => {
    const draft = { body: chat({ messages: [{ role: 'developer', content: 'd', name: 'pi' }, { role: 'user', content: 'u' }] }), changes: [] };
    const out = developerAsSystem(draft, makeBackend('vllm'));
    if (out instanceof SvirError) throw out;
    expect(out.body.messages[0]).toEqual({ role: 'system', content: 'd', name: 'pi' });
    expect(out.changes).toEqual([NOTE]);
  });
});
