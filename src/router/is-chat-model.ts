/**
 * Whether a listed model is a chat model. Servers list embedding, reranking, speech and image
 * models next to chat models and no standard field tells them apart
 * (docs/wire-protocol.md#model-listing), so the practical filter is the name: any of these words
 * anywhere in the id, in any case. A plain substring test, because these words arrive glued to
 * others (`xtts`, `text-embedding-3`, `speecht5_tts`, `FLUX.1-dev`, `Qwen-Image-2.1`).
 */

export const NON_CHAT_MODEL_WORDS = [
  'embed',
  'rerank',
  'bge',
  'clip',
  'whisper',
  'tts',
  'asr',
  'speech',
  'audio',
  'image',
  'flux',
  'sdxl',
  'diffusion',
] as const;

export function isChatModel(id: string): boolean {
  const name = id.toLowerCase();
  return !NON_CHAT_MODEL_WORDS.some((word) => name.includes(word));
}
