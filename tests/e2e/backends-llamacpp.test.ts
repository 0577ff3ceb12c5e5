/**
 * svir in front of a fake llama.cpp: the client gets the clean dialect, and each request reached
 * the server in the form it keeps (docs/wire-protocol.md#messages, #tools, #optional-fields,
 * #chunks, #errors-inside-the-stream, #http-errors).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockerTool, PNG_DATA_URL, weatherTool } from '../adapters/chat.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { changesOf, expectErrorAnswer, readCleanStream, received, startSvir, type SvirRig } from './backends-rig.js';

let plain: ScriptedUpstream;
let withProjector: ScriptedUpstream;
let strength: ScriptedUpstream;
let recorded: ScriptedUpstream;
let svir: SvirRig;

const GGUF = '/models/muse-glimmer-30b-Q4_K_M.gguf';

beforeAll(async () => {
  plain = await startLlamaCppServer({ nCtx: 3000 });
  withProjector = await startLlamaCppServer({ mmproj: true });
  strength = await startLlamaCppServer();
  recorded = await startScriptedUpstream();
  svir = await startSvir([
    // Serving one model, llama.cpp answers any id: svir's name for it goes upstream as it is.
    { name: 'gguf', type: 'llamacpp', upstream: plain, urlPath: '', models: ['glimmer'] },
    { name: 'gguf-text', type: 'llamacpp', upstream: plain, models: ['glimmer-text'], vision: false },
    { name: 'gguf-vision', type: 'llamacpp', upstream: withProjector, models: ['glimmer-vision'] },
    { name: 'gguf-strength', type: 'llamacpp', upstream: strength, models: ['glimmer-strength'], effortTemplateKey: 'reasoning_strength' },
    { name: 'gguf-recorded', type: 'llamacpp', upstream: recorded, models: ['glimmer-recorded'] },
  ]);
});
afterAll(async () => {
  await svir.close();
  for (const upstream of [plain, withProjector, strength, recorded]) await upstream.close();
});

const image = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: PNG_DATA_URL } }, { type: 'text', text: 'What is it?' }] }];
const count = (upstream: ScriptedUpstream): number => upstream.requestsTo('POST', '/v1/chat/completions').length;

describe('llama.cpp through svir', () => {
  it('names the model as the client did, never the server path, and drops its null first content', async () => {
    const answer = await svir.chat({ model: 'glimmer', stream: true, messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(answer, 'glimmer');
    expect(answer.text).not.toContain(GGUF);
    expect(clean.content).toBe('Hello!');
    expect(clean.reasoning).toBe('A greeting is enough.');
  });

  it('sends no tools under none, so its parser cannot fail the stream', async () => {
    const before = count(plain);
    const answer = await svir.chat({ model: 'glimmer', stream: true, messages: [{ role: 'user', content: 'Open locker 4' }], tools: [lockerTool], tool_choice: 'none' });
    const clean = readCleanStream(answer, 'glimmer');
    expect(clean.error).toBeUndefined();
    expect(clean.toolCalls).toEqual([]);
    expect(clean.finish).toBe('stop');
    const sent = received(plain, before);
    expect(sent).not.toHaveProperty('tools');
    expect(sent).not.toHaveProperty('tool_choice');
    expect(changesOf(answer)).toEqual(['tool_choice "none": tools not sent']);
  });

  it('sends a named function as required with only that tool, which its grammar keeps', async () => {
    const before = count(plain);
    const answer = await svir.chat({
      model: 'glimmer',
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
      tools: [weatherTool, lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
    });
    const clean = readCleanStream(answer, 'glimmer');
    expect(clean.toolCalls).toEqual([{ id: expect.stringMatching(/^[0-9A-Za-z]{32}$/), name: 'open_locker', arguments: '{"number":4}' }]);
    // Its grammar lets the answer in words come before the call: svir keeps both.
    expect(clean.content).toBe('Hello!');
    expect(clean.finish).toBe('tool_calls');
    expect(received(plain, before)).toMatchObject({ tool_choice: 'required', tools: [lockerTool] });
  });

  it('refuses an image with 400 before sending when it has no projector (config vision: false)', async () => {
    const before = count(plain);
    const error = expectErrorAnswer(await svir.chat({ model: 'glimmer-text', messages: image }), 400, 'unsupported_content');
    expect(error.message).toContain('gguf-text');
    expect(count(plain)).toBe(before);
  });

  it('reads its 500 for an image it never takes as 400 unsupported_content', async () => {
    expectErrorAnswer(await svir.chat({ model: 'glimmer', messages: image }), 400, 'unsupported_content');
  });

  it('sends an image with its projector as one text part then the data URL', async () => {
    const answer = await svir.chat({ model: 'glimmer-vision', messages: image });
    expect(answer.status).toBe(200);
    expect(received(withProjector).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] },
    ]);
  });

  it('reads exceed_context_size_error as 400 context_length_exceeded with the counts', async () => {
    const error = expectErrorAnswer(await svir.chat({ model: 'glimmer', stream: true, messages: [{ role: 'user', content: 'x'.repeat(3500) }] }), 400, 'context_length_exceeded');
    expect(error.message).toContain('maximum context length is 3000 tokens');
    expect(error.message).toContain('3500');
  });

  it('sends the effort to the variable its template reads', async () => {
    const answer = await svir.chat({ model: 'glimmer-strength', stream: true, reasoning_effort: 'none', messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(answer, 'glimmer-strength');
    expect(clean.reasoning).toBe('');
    expect(received(strength).chat_template_kwargs).toEqual({ reasoning_strength: 'none' });
    expect(changesOf(answer)).toEqual(['reasoning_effort "none" sent as chat_template_kwargs.reasoning_strength="none"']);
  });

  it('ends the stream with one error event and no [DONE] when its error chunk comes after the headers', async () => {
    const bytes = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'llamacpp', 'llama-cpp-error.sse'));
    recorded.chat({ kind: 'sse', pieces: [new Uint8Array(bytes)] });
    const clean = readCleanStream(await svir.chat({ model: 'glimmer-recorded', stream: true, messages: [{ role: 'user', content: 'Open locker 4' }] }), 'glimmer-recorded');
    expect(clean.done).toBe(false);
    expect(clean.error?.code).toBe('upstream_error');
    expect(clean.error?.message).toContain('peg-native format');
    expect(clean.reasoning).toBe('The user wants locker 4 opened, but tools are off.');
  });
});
