/**
 * svir's Messages route (docs/messages.md) in front of a real llama.cpp `llama-server` serving
 * the tiny Qwen3 model: Anthropic's SDK and Claude Code itself through svir. The model's own
 * context is 4096 tokens; `--override-kv` lets the server give it 65536, room for Claude Code's
 * prompt of some 15k tokens (issue 25).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeCodeVersion, runClaudeCode } from '../clients/harness/claude-code-cli.js';
import { transcript } from '../clients/harness/run-sealed-cli.js';
import { MODELS, startRealLlamaServer, type RealLlamaServer } from './llama-server.js';
import { TINY_ANSWER, TINY_REASONING } from './recorded-cases.js';
import { startSvirFront, type SvirFront } from './svir-real.js';

const WIDE_CONTEXT = 65536;

let wide: RealLlamaServer;
let small: RealLlamaServer;
let svir: SvirFront;
let client: Anthropic;

beforeAll(async () => {
  expect(await claudeCodeVersion()).toMatch(/\d+\.\d+\.\d+/);
  [wide, small] = await Promise.all([
    startRealLlamaServer(MODELS.plain, ['-c', String(WIDE_CONTEXT), '--override-kv', `qwen3.context_length=int:${WIDE_CONTEXT}`]),
    startRealLlamaServer(MODELS.plain, ['-c', '4096']),
  ]);
  svir = await startSvirFront([
    { name: 'llama', type: 'llamacpp', url: `${wide.url}/v1`, models: ['tiny'] },
    { name: 'llama-small', type: 'llamacpp', url: `${small.url}/v1`, models: ['tiny-small'] },
  ]);
  client = new Anthropic({ apiKey: 'unused', baseURL: svir.process.url, maxRetries: 0 });
});

afterAll(async () => {
  await svir?.process.stop();
  await Promise.all([wide?.stop(), small?.stop()]);
});

describe('@anthropic-ai/sdk through svir to llama-server', () => {
  it('messages.create, stream: false: the thinking and the text', async () => {
    const message = await client.messages.create({ model: 'tiny', max_tokens: 60, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: expect.stringContaining(TINY_REASONING) as unknown, signature: '' },
      { type: 'text', text: TINY_ANSWER },
    ]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('messages.stream().finalMessage(): the same answer, streamed', async () => {
    const final = await client.messages.stream({ model: 'tiny', max_tokens: 60, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(final.content.at(-1)).toEqual({ type: 'text', text: TINY_ANSWER });
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('countTokens: the server\'s own template and tokenizer', async () => {
    const response = await fetch(`${svir.process.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.headers.get('x-svir-token-count')).toBe('tokenizer');
    const { input_tokens: tokens } = z.object({ input_tokens: z.number() }).parse(await response.json());
    const counted = await client.messages.countTokens({ model: 'tiny', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(counted.input_tokens).toBe(tokens);
    // The chat template's own markers are counted: more than the words.
    expect(tokens).toBeGreaterThan(4);
    expect(tokens).toBeLessThan(64);
  });

  it('max_tokens 32000 lowered to the 4096 the server reports in /props', async () => {
    const response = await fetch(`${svir.process.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-small', max_tokens: 32000, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svir-changes')).toMatch(/max_tokens 32000 lowered to \d+ \(the backend's context is 4096 tokens/);
    await response.body?.cancel();
  });
});


describe('Claude Code through svir to llama-server', () => {
  it('claude -p answers with the model\'s text, its reasoning shown', async () => {
    const run = await runClaudeCode({ baseURL: svir.process.url, apiKey: 'unused', model: 'tiny', prompt: 'Say hi.', timeoutMs: 300_000 });
    expect(run.timedOut, transcript(run)).toBe(false);
    expect(run.exitCode, transcript(run)).toBe(0);
    expect(run.result?.result, transcript(run)).toBe(TINY_ANSWER);
    expect(run.assistantBlocks.some((block) => block.type === 'thinking' && (block.thinking ?? '').includes(TINY_REASONING)), transcript(run)).toBe(true);
    expect(run.strayConnections).toEqual([]);
  }, 320_000);

  it('a prompt over the small server\'s context is reported by Claude Code as a too-long prompt', async () => {
    const run = await runClaudeCode({ baseURL: svir.process.url, apiKey: 'unused', model: 'tiny-small', prompt: 'Say hi.', timeoutMs: 300_000 });
    expect(run.timedOut, transcript(run)).toBe(false);
    expect(run.exitCode, transcript(run)).not.toBe(0);
    expect(`${run.result?.result ?? ''}`, transcript(run)).toMatch(/prompt is too long/i);
    expect(run.strayConnections).toEqual([]);
  }, 320_000);
});
