/**
 * The second turns the Responses route's client tests replay (the first turns are those of
 * scenarios.ts), and Codex's: a call to its `exec_command` tool with arguments in the shape its
 * tool schema asks for (`cmd`, and `login: false` so no login profile adds to the output),
 * then the answer once the command's output came back.
 */
import type { UpstreamTurn } from './upstream-turn.js';

/** The model's answer once both lookups of SPLIT_INTERLEAVED_TOOL_CALLS came back. */
export const AFTER_LOOKUPS: UpstreamTurn = {
  steps: [
    { reasoning: 'Both values are in.' },
    { content: 'Lookup 1 gave ten' },
    { content: ' and lookup 2 gave twenty.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } },
  ],
  end: { kind: 'done' },
};
export const AFTER_LOOKUPS_EXPECTED = { reasoning: 'Both values are in.', content: 'Lookup 1 gave ten and lookup 2 gave twenty.' };

/** What the test's `lookup` tool answers for a value (the SDKs that run tools call it). */
export function lookupResult(value: number): string {
  return value === 1 ? 'ten' : value === 2 ? 'twenty' : 'unknown';
}

/** A plain answer to a follow-up question, for conversations continued by id. */
export const FOLLOW_UP: UpstreamTurn = {
  steps: [
    { content: 'Four, five' },
    { content: ', six.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } },
  ],
  end: { kind: 'done' },
};
export const FOLLOW_UP_EXPECTED = { content: 'Four, five, six.' };

/** The command Codex is asked to run, and what it prints. */
export const CODEX_COMMAND = 'echo svir-roundtrip';
export const CODEX_COMMAND_OUTPUT = 'svir-roundtrip';

/** The model asks Codex to run CODEX_COMMAND, its arguments split across chunks. */
export const CODEX_EXEC_CALL: UpstreamTurn = {
  steps: [
    { reasoning: 'I will run the command.' },
    { tools: [{ index: 0, id: 'call_codex_1', name: 'exec_command', arguments: '{"cmd":"echo svir-' }] },
    { tools: [{ index: 0, arguments: 'roundtrip","login":false}' }] },
    { finish: 'tool_calls' },
    { usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 } },
  ],
  end: { kind: 'done' },
};

/** The model's answer once the command's output came back. */
export const CODEX_AFTER_EXEC: UpstreamTurn = {
  steps: [
    { content: 'The command printed ' },
    { content: 'svir-roundtrip.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 960, completion_tokens: 6, total_tokens: 966 } },
  ],
  end: { kind: 'done' },
};
export const CODEX_AFTER_EXEC_EXPECTED = { content: 'The command printed svir-roundtrip.' };

/**
 * The model calls a function of Codex's `multi_agent_v1` namespace under the flat name svir
 * offered it as (`<namespace>__<name>`), for an agent that does not exist: harmless, and Codex
 * answers with its own error for that id only if the call came back split into name and namespace
 * (otherwise "unsupported call").
 */
export const CODEX_NAMESPACED_CALL: UpstreamTurn = {
  steps: [
    { tools: [{ index: 0, id: 'call_codex_ns', name: 'multi_agent_v1__close_agent', arguments: '{"target":"no-such-agent"}' }] },
    { finish: 'tool_calls' },
    { usage: { prompt_tokens: 900, completion_tokens: 12, total_tokens: 912 } },
  ],
  end: { kind: 'done' },
};
