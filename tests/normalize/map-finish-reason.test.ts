import { describe, expect, it } from 'vitest';
import { mapFinishReason } from '../../src/normalize/map-finish-reason.js';

describe('mapFinishReason', () => {
  it('keeps the four reasons of the clean dialect', () => {
    for (const reason of ['stop', 'length', 'tool_calls', 'content_filter'] as const) expect(mapFinishReason(reason)).toBe(reason);
  });

  it('reads other servers’ words for what they mean', () => {
    expect(mapFinishReason('eos')).toBe('stop');
    expect(mapFinishReason('end_turn')).toBe('stop');
    expect(mapFinishReason('stop_sequence')).toBe('stop');
    expect(mapFinishReason('max_tokens')).toBe('length');
    expect(mapFinishReason('model_length')).toBe('length');
    expect(mapFinishReason('function_call')).toBe('tool_calls');
    expect(mapFinishReason('tool_use')).toBe('tool_calls');
    expect(mapFinishReason('safety')).toBe('content_filter');
    expect(mapFinishReason(' Length ')).toBe('length');
  });

  it('reads an unknown reason as stop', () => {
    expect(mapFinishReason('something_new')).toBe('stop');
    expect(mapFinishReason('')).toBe('stop');
  });

  it('reads the reasons that mean the server gave up on the answer as cut', () => {
    expect(mapFinishReason('abort')).toBe('cut');
    expect(mapFinishReason('aborted')).toBe('cut');
    expect(mapFinishReason('error')).toBe('cut');
    expect(mapFinishReason(' ERROR ')).toBe('cut');
  });
});
