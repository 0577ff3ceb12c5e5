/**
 * The backends the client tests run behind svir: every backend type, plus the two ways a server
 * sends reasoning inside `content` (`<think>` tags, and a template that opened the tag itself).
 * Each says how its server frames a stream (the facts of docs/wire-protocol.md) and how
 * svir's config names it.
 */
import type { BackendType } from '../../../src/config/schema.js';

export type Dialect =
  | 'openai'
  | 'lmstudio'
  | 'llamacpp'
  | 'llamacpp-think-tags'
  | 'vllm'
  | 'vllm-template-opened-think'
  | 'mlx-lm'
  | 'mlx-vlm'
  | 'ollama'
  | 'azure';

export interface BackendFlavor {
  /** Backend name in svir's config, and the test label. */
  name: string;
  type: BackendType;
  dialect: Dialect;
  /** The model id a client asks svir for. */
  clientModel: string;
  /** What the server writes in its chunks' `model` (a path, a version): svir must not pass it on. */
  upstreamModel: string;
  reasoningTags: 'auto' | 'open' | 'off';
  /** Where svir posts chat requests on the fake, given the config URL below. */
  chatPath: string;
  /** The config `url` relative to the fake's origin. */
  urlPath: string;
  /** A key svir must send upstream (azure requires one). */
  apiKey?: string;
}

export const BACKEND_FLAVORS: readonly BackendFlavor[] = [
  {
    name: 'lmstudio',
    type: 'lmstudio',
    dialect: 'lmstudio',
    clientModel: 'qwen3.8-27b@lmstudio',
    upstreamModel: 'qwen3.8-27b@lmstudio',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
  {
    name: 'llamacpp',
    type: 'llamacpp',
    dialect: 'llamacpp',
    clientModel: 'glimmer-llamacpp',
    upstreamModel: '/models/muse-glimmer-30b-Q4_K_M.gguf',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '',
  },
  {
    name: 'llamacpp-tags',
    type: 'llamacpp',
    dialect: 'llamacpp-think-tags',
    clientModel: 'glimmer-llamacpp-tags',
    upstreamModel: '/models/muse-glimmer-30b-Q4_K_M.gguf',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1/',
  },
  {
    name: 'vllm',
    type: 'vllm',
    dialect: 'vllm',
    clientModel: 'qwen3.8-vllm',
    upstreamModel: 'qwen3.8-vllm',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
  {
    name: 'vllm-open',
    type: 'vllm',
    dialect: 'vllm-template-opened-think',
    clientModel: 'qwen3.8-vllm-open',
    upstreamModel: 'qwen3.8-vllm-open',
    reasoningTags: 'open',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
  {
    name: 'mlx-lm',
    type: 'mlx-lm',
    dialect: 'mlx-lm',
    clientModel: 'qwen3.8-mlx-lm',
    upstreamModel: '/Users/me/models/Qwen3.8-27B-4bit',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
  {
    name: 'mlx-vlm',
    type: 'mlx-vlm',
    dialect: 'mlx-vlm',
    clientModel: 'qwen3.8-mlx-vlm',
    upstreamModel: '/Users/me/models/Qwen3.8-27B-4bit',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
  {
    name: 'ollama',
    type: 'ollama',
    dialect: 'ollama',
    clientModel: 'qwen3:8b',
    upstreamModel: 'qwen3:8b',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
  {
    name: 'azure',
    type: 'azure',
    dialect: 'azure',
    clientModel: 'luna-deployment',
    upstreamModel: 'gpt-6-luna-2026-09-22',
    reasoningTags: 'auto',
    chatPath: '/openai/v1/chat/completions',
    urlPath: '/openai/v1/',
    apiKey: 'azure-upstream-key',
  },
  {
    name: 'openai',
    type: 'openai',
    dialect: 'openai',
    clientModel: 'gpt-compatible',
    upstreamModel: 'gpt-compatible-2026-01-01',
    reasoningTags: 'auto',
    chatPath: '/v1/chat/completions',
    urlPath: '/v1',
  },
];
