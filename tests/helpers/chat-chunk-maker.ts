/**
 * The chat.completion.chunk objects an OpenAI-compatible upstream streams, for the scripted and
 * fake upstreams of the tests (docs/wire-protocol.md): each test names its stream by its own id,
 * created and model, and gets `chunk(delta, finish)` (one choice) and `usage(usage)` (no choice,
 * the usage) for that envelope.
 */
export interface ChunkEnvelope {
  id: string;
  created: number;
  model: string;
}

export interface ChatChunkMaker {
  chunk(delta: Record<string, unknown>, finish?: string | null): Record<string, unknown>;
  usage(usage: Record<string, unknown>): Record<string, unknown>;
}

export function chatChunkMaker(envelope: ChunkEnvelope): ChatChunkMaker {
  const { id, created, model } = envelope;
  return {
    chunk: (delta, finish = null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] }),
    usage: (usage) => ({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }),
  };
}
