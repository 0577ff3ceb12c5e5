/**
 * One fake server of every backend type, as the cross-backend end-to-end tests put svir in front
 * of them (backends-same-shape.test.ts, responses.test.ts): each serves the model
 * `model-<type>` under the backend `b-<type>`; Azure with its `async` filter and its key, and
 * `openai` fronting a vLLM with its parsers (any OpenAI-compatible server).
 */
import { startAzureServer } from '../fakes/azure-server.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { startMlxLmServer } from '../fakes/mlx-lm-server.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import type { RigBackend } from './backends-rig.js';

/** The backends, in svir's config order, each with its fake as `upstream` (to close, to read). */
export async function startFakeOfEveryType(): Promise<RigBackend[]> {
  const backends: RigBackend[] = [];
  const add = (type: string, upstream: ScriptedUpstream, extra: Partial<RigBackend> = {}): void => {
    backends.push({ name: `b-${type}`, type, upstream, models: [`model-${type}`], ...extra });
  };
  try {
    add('lmstudio', await startLmStudioServer({ loadedModel: 'model-lmstudio' }));
    add('llamacpp', await startLlamaCppServer());
    add('vllm', await startVllmServer({ servedModelName: 'model-vllm' }));
    add('mlx-lm', await startMlxLmServer());
    add('mlx-vlm', await startMlxVlmServer());
    add('ollama', await startOllamaServer({ models: [{ name: 'model-ollama', thinking: true, tools: true }] }));
    add('azure', await startAzureServer({ deployments: ['model-azure'], filter: 'async' }), { urlPath: '', apiKey: 'azure-test-key' });
    add('openai', await startVllmServer({ servedModelName: 'model-openai' }));
  } catch (err) {
    // The fakes already up are closed here: the caller never got them to close.
    for (const backend of backends) await backend.upstream.close();
    throw err;
  }
  return backends;
}
