import { describe, expect, it } from 'vitest';
import { isChatModel } from '../../src/router/is-chat-model.js';

describe('isChatModel', () => {
  it.each([
    'text-embedding-nomic-embed-text-v1.5',
    'Qwen3-Embedding-8B',
    'jina-reranker-v2',
    'BAAI/bge-m3',
    'openai/clip-vit-large',
    'whisper-large-v3',
    'coqui/XTTS-v2',
    'parakeet-asr',
    'microsoft/speecht5_tts',
    'gpt-4o-audio-preview',
    'unsloth/Qwen-Image-2.1',
    'black-forest-labs/FLUX.1-dev',
    'stabilityai/sdxl-turbo',
    'stable-diffusion-3.5',
  ])('drops %s', (id) => {
    expect(isChatModel(id)).toBe(false);
  });

  it.each([
    'qwen3.8-27b',
    '/Users/me/models/Qwen3.8-27B-MLX-4bit',
    '/models/muse-glimmer-30b-Q4_K_M.gguf',
    'gpt-6-luna',
    'meta-llama/Llama-3.3-70B-Instruct',
  ])('keeps %s', (id) => {
    expect(isChatModel(id)).toBe(true);
  });
});
