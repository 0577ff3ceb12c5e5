/**
 * The config svir runs with when given none: it fronts the usual local ports (LM Studio 1234,
 * llama.cpp 8080, vLLM 8000, Ollama 11434) and discovers their models. `config/default.yaml` is the same
 * config written as a file (a test keeps the two equal).
 */
import { configSchema, type Config, type ConfigInput } from './schema.js';

export const DEFAULT_CONFIG_INPUT: ConfigInput = {
  server: { host: '127.0.0.1', port: 4000 },
  backends: [
    { name: 'lmstudio', type: 'lmstudio', url: 'http://127.0.0.1:1234/v1' },
    { name: 'llamacpp', type: 'llamacpp', url: 'http://127.0.0.1:8080/v1' },
    { name: 'vllm', type: 'vllm', url: 'http://127.0.0.1:8000/v1' },
    { name: 'ollama', type: 'ollama', url: 'http://127.0.0.1:11434/v1' },
  ],
};

export function defaultConfig(): Config {
  return configSchema.parse(DEFAULT_CONFIG_INPUT);
}
