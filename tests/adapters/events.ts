/** SSE events and stream contexts for adapter readEvent tests. */
import type { StreamContext } from '../../src/normalize/stream-context.js';
import type { SseEvent } from '../../src/normalize/parts.js';
import { fixtureContext } from '../helpers/replay-fixture.js';

export function data(payload: string | Record<string, unknown>, event?: string): SseEvent {
  return { event, data: typeof payload === 'string' ? payload : JSON.stringify(payload) };
}

export function ctx(overrides: Partial<StreamContext> = {}): StreamContext {
  return fixtureContext({ backend: 'test-backend', ...overrides });
}

/** A chunk with one choice carrying this delta (and finish reason). */
export function chunk(delta: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { finish_reason = null, choiceExtra = {}, ...top } = extra;
  const choice: Record<string, unknown> = { index: 0, finish_reason };
  if (delta !== undefined) choice.delta = delta;
  if (typeof choiceExtra === 'object' && choiceExtra !== null) Object.assign(choice, choiceExtra);
  return { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'up-model', choices: [choice], ...top };
}
