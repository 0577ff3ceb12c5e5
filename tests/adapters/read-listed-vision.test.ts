import { afterEach, describe, expect, it } from 'vitest';
import { readListedVision } from '../../src/adapters/models/read-listed-vision.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';

let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function listOf(mmproj: boolean): Promise<unknown> {
  upstream = await startLlamaCppServer({ mmproj });
  const response = await fetch(`${upstream.baseUrl}/models`);
  return response.json();
}

describe('readListedVision', () => {
  it("reads llama.cpp's input modalities: image with the projector, text only without", async () => {
    expect(readListedVision(await listOf(true))).toBe(true);
    await upstream?.close();
    expect(readListedVision(await listOf(false))).toBe(false);
  });

  it('falls back to the capabilities of its models array', () => {
    expect(readListedVision({ models: [{ name: 'm', capabilities: ['completion', 'multimodal'] }], data: [{ id: 'm' }] })).toBe(true);
    expect(readListedVision({ models: [{ name: 'm', capabilities: ['completion'] }], data: [{ id: 'm' }] })).toBe(false);
  });

  it('says nothing for a list that says nothing, or is not a list', () => {
    expect(readListedVision({ object: 'list', data: [{ id: 'qwen3.8', owned_by: 'vllm' }] })).toBeUndefined();
    expect(readListedVision('<html>')).toBeUndefined();
    expect(readListedVision(null)).toBeUndefined();
  });
});
