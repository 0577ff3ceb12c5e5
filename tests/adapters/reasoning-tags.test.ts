/**
 * What decides how content is read for `<think>` tags: the backend's config or its type's
 * default (reasoningTagsOf), and whether the request as sent turned reasoning off
 * (turnsReasoningOff), which makes a template that opens `<think>` not open it.
 */
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { reasoningTagsOf } from '../../src/adapters/reasoning-tags-of.js';
import { turnsReasoningOff } from '../../src/adapters/request/turns-reasoning-off.js';
import { BACKEND_TYPES } from '../../src/config/schema.js';

describe('reasoningTagsOf', () => {
  it('reads azure content as text by default, every other type for a think block that opens the answer', () => {
    for (const type of BACKEND_TYPES) {
      expect(reasoningTagsOf({}, getAdapter(type)), type).toBe(type === 'azure' ? 'off' : 'auto');
    }
  });

  it('takes the config over the type default', () => {
    expect(reasoningTagsOf({ reasoningTags: 'auto' }, getAdapter('azure'))).toBe('auto');
    expect(reasoningTagsOf({ reasoningTags: 'open' }, getAdapter('vllm'))).toBe('open');
    expect(reasoningTagsOf({ reasoningTags: 'off' }, getAdapter('llamacpp'))).toBe('off');
  });
});

describe('turnsReasoningOff', () => {
  it('is true for reasoning_effort none and the template switches set off', () => {
    expect(turnsReasoningOff({ reasoning_effort: 'none' })).toBe(true);
    expect(turnsReasoningOff({ chat_template_kwargs: { enable_thinking: false } })).toBe(true);
    expect(turnsReasoningOff({ chat_template_kwargs: { thinking: false } })).toBe(true);
    expect(turnsReasoningOff({ chat_template_kwargs: { reasoning_effort: 'none' } })).toBe(true);
  });

  it('reads the backend’s own template variable', () => {
    expect(turnsReasoningOff({ chat_template_kwargs: { reasoning_strength: 'none' } }, 'reasoning_strength')).toBe(true);
    expect(turnsReasoningOff({ chat_template_kwargs: { reasoning_strength: 'low' } }, 'reasoning_strength')).toBe(false);
    expect(turnsReasoningOff({ chat_template_kwargs: { reasoning_strength: 'none' } })).toBe(false);
  });

  it('is false when reasoning is on, unset, or the fields have other shapes', () => {
    expect(turnsReasoningOff({})).toBe(false);
    expect(turnsReasoningOff({ reasoning_effort: 'low' })).toBe(false);
    expect(turnsReasoningOff({ chat_template_kwargs: { enable_thinking: true } })).toBe(false);
    expect(turnsReasoningOff({ chat_template_kwargs: { enable_thinking: 'false' } })).toBe(false);
    expect(turnsReasoningOff({ chat_template_kwargs: 'enable_thinking=false' })).toBe(false);
    expect(turnsReasoningOff({ chat_template_kwargs: null })).toBe(false);
  });
});
