/**
 * Errors of the chat pipeline answered on /v1/responses name the Responses request's fields
 * (docs/responses.md, "Errors"): an overflow and an image a text-only backend cannot take name
 * `input`, a rejected output cap `max_output_tokens`, as OpenAI's own Responses API answers;
 * the chat route keeps the chat names. Against the fakes, end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMlxLmServer } from '../fakes/mlx-lm-server.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

let scripted: ScriptedUpstream;
let mlx: ScriptedUpstream;
let svir: SvirRig;

beforeAll(async () => {
  scripted = await startScriptedUpstream();
  mlx = await startMlxLmServer();
  svir = await startSvir([
    { name: 'scripted', type: 'openai', upstream: scripted, models: ['scripted-model'] },
    { name: 'mlx', type: 'mlx-lm', upstream: mlx, models: ['mlx-model'] },
  ]);
});
afterAll(async () => {
  await svir.close();
  await scripted.close();
  await mlx.close();
});

async function responses(body: Record<string, unknown>): Promise<{ status: number; error: Record<string, unknown> }> {
  const response = await fetch(`${svir.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { error: Record<string, unknown> };
  return { status: response.status, error: json.error };
}

const overflow = {
  kind: 'body' as const,
  status: 400,
  body: { error: { message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
};
const image = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' };

describe('the Responses route names its own fields in errors', () => {
  it.each([true, false])('an overflow names input (stream %s)', async (stream) => {
    scripted.chat(overflow);
    const answer = await responses({ model: 'scripted-model', input: 'x', stream });
    expect(answer).toMatchObject({ status: 400, error: { code: 'context_length_exceeded', param: 'input' } });
  });

  it('an image to a text-only backend names input', async () => {
    const before = mlx.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await responses({ model: 'mlx-model', input: [{ role: 'user', content: [{ type: 'input_text', text: 'what is it' }, image] }] });
    expect(answer).toMatchObject({ status: 400, error: { code: 'unsupported_content', param: 'input' } });
    expect(mlx.requestsTo('POST', '/v1/chat/completions')).toHaveLength(before);
  });

  it('an output cap the backend rejects names max_output_tokens', async () => {
    scripted.chat({
      kind: 'body',
      status: 400,
      body: { error: { message: 'max_tokens=300000 cannot be greater than max_model_len=262144', type: 'BadRequestError', param: 'max_tokens', code: 400 } },
    });
    const answer = await responses({ model: 'scripted-model', input: 'x', max_output_tokens: 300_000 });
    expect(answer).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'max_output_tokens' } });
  });

  it('its own refusals keep the field the client sent (prompt is a Responses field)', async () => {
    const answer = await responses({ model: 'scripted-model', input: 'x', prompt: { id: 'pmpt_1' } });
    expect(answer).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'prompt' } });
  });
});

describe('the chat route keeps the chat names', () => {
  it('an overflow names messages', async () => {
    scripted.chat(overflow);
    const answer = await svir.chat({ model: 'scripted-model', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'context_length_exceeded', param: 'messages' } });
  });

  it('an image to a text-only backend names messages', async () => {
    const answer = await svir.chat({
      model: 'mlx-model',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is it' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }],
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'unsupported_content', param: 'messages' } });
  });
});
