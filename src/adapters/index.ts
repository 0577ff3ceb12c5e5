/** Backend type → its adapter. The only place that knows which module serves which type. */
import type { BackendType } from '../config/schema.js';
import type { Adapter } from './adapter.js';
import { azureAdapter } from './azure.js';
import { llamacppAdapter } from './llamacpp.js';
import { lmstudioAdapter } from './lmstudio.js';
import { mlxLmAdapter } from './mlx-lm.js';
import { mlxVlmAdapter } from './mlx-vlm.js';
import { ollamaAdapter } from './ollama.js';
import { openaiAdapter } from './openai.js';
import { vllmAdapter } from './vllm.js';

const ADAPTERS: Readonly<Record<BackendType, Adapter>> = {
  openai: openaiAdapter,
  lmstudio: lmstudioAdapter,
  llamacpp: llamacppAdapter,
  vllm: vllmAdapter,
  'mlx-lm': mlxLmAdapter,
  'mlx-vlm': mlxVlmAdapter,
  ollama: ollamaAdapter,
  azure: azureAdapter,
};

export function getAdapter(type: BackendType): Adapter {
  return ADAPTERS[type];
}
