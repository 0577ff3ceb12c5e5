import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { llamacppAdapter } from '../../src/adapters/llamacpp.js';
import { LLAMACPP_REASONING_MARKERS } from '../../src/adapters/stream/llamacpp-reasoning-markers.js';
import { createSpeedMeter, isVisibleChunk, markerText, MIN_SPEED_WINDOW_MS } from '../../src/metrics/measure-speed.js';
import type { CleanToolCallDelta } from '../../src/normalize/clean-chunk.js';
import { runFixture } from '../helpers/replay-fixture.js';
import { cleanChunkMaker } from '../helpers/clean-chunk-maker.js';

const { chunk, usage } = cleanChunkMaker({ id: 'c1', model: 'm' });
const usageChunk = usage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });

describe('isVisibleChunk', () => {
  it('counts text, reasoning under any key, tool call pieces and refusal', () => {
    expect(isVisibleChunk(chunk({ content: 'Hi' }))).toBe(true);
    expect(isVisibleChunk(chunk({ content: '\n\n' }))).toBe(true);
    expect(isVisibleChunk(chunk({ reasoning_content: 'hmm' }))).toBe(true);
    expect(isVisibleChunk(chunk({ thoughts: 'hmm' }))).toBe(true);
    expect(isVisibleChunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '{' } }] }))).toBe(true);
    expect(isVisibleChunk(chunk({ refusal: 'No.' }))).toBe(true);
  });

  it('does not count the role chunk, the finish chunk, the usage chunk or a bare think marker', () => {
    expect(isVisibleChunk(chunk({ role: 'assistant' }))).toBe(false);
    expect(isVisibleChunk(chunk({ role: 'assistant', content: '' }))).toBe(false);
    expect(isVisibleChunk(chunk({}, 'stop'))).toBe(false);
    expect(isVisibleChunk(usageChunk)).toBe(false);
    expect(isVisibleChunk(chunk({ content: '<think>' }))).toBe(false);
    expect(isVisibleChunk(chunk({ content: '</think>' }))).toBe(false);
    expect(isVisibleChunk(chunk({ content: '</think>ok' }))).toBe(true);
  });
  it('agrees with its definition on any delta: a key other than role with text left once think markers are removed, or tool calls', () => {
    const text = fc.oneof(fc.constantFrom('', '<think>', '</think>', '<', 'a', ' the', '<b>', '</think>x'), fc.string({ maxLength: 6 }));
    const delta = fc.record(
      {
        role: fc.constant('assistant' as const),
        content: text,
        reasoning_content: text,
        refusal: text,
        tool_calls: fc.boolean().map((some): CleanToolCallDelta[] => (some ? [{ index: 0, function: { arguments: '' } }] : [])),
      },
      { requiredKeys: [] },
    );
    const definition = (d: Record<string, unknown>): boolean =>
      Object.entries(d).some(([key, value]) =>
        key === 'tool_calls'
          ? Array.isArray(value) && value.length > 0
          : key !== 'role' && typeof value === 'string' && value.replace(/<\/?think>/g, '').length > 0,
      );
    fc.assert(
      fc.property(delta, (d) => {
        expect(isVisibleChunk(chunk(d))).toBe(definition(d));
      }),
    );
  });
});

describe('createSpeedMeter', () => {
  it('measures from the first visible token to the last, not from the request', () => {
    const meter = createSpeedMeter();
    meter.observe(chunk({ role: 'assistant' }), 0);
    // 11 tokens, 100 ms apart, starting after a 5 s prompt: 10 steps in 1 s.
    for (let i = 0; i <= 10; i += 1) meter.observe(chunk({ content: `t${i}` }), 5_000 + i * 100);
    meter.observe(chunk({}, 'stop'), 6_500);
    meter.observe(usageChunk, 6_500);
    expect(meter.result()).toEqual({ tokens: 11, firstAtMs: 5_000, lastAtMs: 6_000, tokensPerSecond: 10 });
  });

  it('ignores chunks that were only a think marker', () => {
    const meter = createSpeedMeter();
    meter.observe(chunk({ content: '<think>' }), 0);
    meter.observe(chunk({ content: 'a' }), 100);
    meter.observe(chunk({ content: '</think>' }), 150);
    meter.observe(chunk({ content: 'b' }), 200);
    expect(meter.result()).toMatchObject({ tokens: 2, firstAtMs: 100, tokensPerSecond: 10 });
  });

  it('gives no rate for one token', () => {
    const meter = createSpeedMeter();
    meter.observe(chunk({ content: 'only' }), 1_000);
    expect(meter.result()).toMatchObject({ tokens: 1, tokensPerSecond: undefined });
  });

  it('gives no rate for a window under 50 ms', () => {
    const meter = createSpeedMeter();
    meter.observe(chunk({ content: 'a' }), 0);
    meter.observe(chunk({ content: 'b' }), MIN_SPEED_WINDOW_MS - 1);
    expect(meter.result().tokensPerSecond).toBeUndefined();
    meter.observe(chunk({ content: 'c' }), MIN_SPEED_WINDOW_MS);
    expect(meter.result().tokensPerSecond).toBe(40);
  });

  it('gives no rate when nothing visible came', () => {
    const meter = createSpeedMeter();
    meter.observe(chunk({ role: 'assistant' }), 0);
    meter.observe(chunk({}, 'stop'), 500);
    expect(meter.result()).toEqual({ tokens: 0, firstAtMs: undefined, lastAtMs: undefined, tokensPerSecond: undefined });
  });

  it('always equals (tokens - 1) / window for evenly spaced tokens', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 500 }), fc.integer({ min: 1, max: 1_000 }), (tokens, gapMs) => {
        const meter = createSpeedMeter();
        for (let i = 0; i < tokens; i += 1) meter.observe(chunk({ content: 'x' }), i * gapMs);
        const window = (tokens - 1) * gapMs;
        const rate = meter.result().tokensPerSecond;
        if (window < MIN_SPEED_WINDOW_MS) return rate === undefined;
        return rate !== undefined && Math.abs(rate - 1000 / gapMs) < 1e-9;
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});

describe('the reasoning markers of llama.cpp\'s chat formats (docs/llamacpp-real.md)', () => {
  const markers = markerText(LLAMACPP_REASONING_MARKERS);

  it('takes each marker whole and in the pieces a server streams it in', () => {
    expect([...markers.pieces].sort()).toEqual(
      ['<think>', '</think>', '[THINK]', '[/THINK]', '<|channel|>analysis<|message|>', '<|channel|>analysis', '<|message|>', '<|end|>'].sort(),
    );
    expect(isVisibleChunk(chunk({ content: '[THINK]' }), markers)).toBe(false);
    expect(isVisibleChunk(chunk({ content: '<|channel|>analysis' }), markers)).toBe(false);
    expect(isVisibleChunk(chunk({ content: '<|end|>' }), markers)).toBe(false);
    expect(isVisibleChunk(chunk({ content: '[/THINK]Hello' }), markers)).toBe(true);
    expect(isVisibleChunk(chunk({ content: 'analysis' }), markers)).toBe(true);
    expect(isVisibleChunk(chunk({ content: '[1]' }), markers)).toBe(true);
  });

  // Each format's recording with --reasoning-format none, read with reasoningTags off (the
  // markers stay in content): the tokens are the 6 of the reasoning and the 11 of the answer,
  // and GLM's "\n" after </think>; the marker chunks are none.
  it.each([
    ['gpt-oss', 17],
    ['ministral-3', 17],
    ['deepseek-v3.1', 17],
    ['glm-4.6', 18],
  ])('%s: counts the tokens that carried text, not the marker chunks', (format, tokens) => {
    const bytes = new Uint8Array(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'llamacpp', `llamacpp-v0.5.0-${format}-raw-plain.sse`)));
    const outcome = runFixture([bytes], {
      readEvent: llamacppAdapter.readEvent,
      ctx: { reasoningTags: 'off', reasoningMarkers: LLAMACPP_REASONING_MARKERS },
    });
    const meter = createSpeedMeter(LLAMACPP_REASONING_MARKERS);
    outcome.chunks.forEach((clean, i) => meter.observe(clean, i * 10));
    expect(meter.result().tokens).toBe(tokens);
    // Without the formats' markers, each marker chunk would count as a token.
    const thinkOnly = createSpeedMeter();
    outcome.chunks.forEach((clean, i) => thinkOnly.observe(clean, i * 10));
    expect(thinkOnly.result().tokens).toBe(tokens + { 'gpt-oss': 3, 'ministral-3': 2, 'deepseek-v3.1': 0, 'glm-4.6': 0 }[format]!);
  });
});
