/**
 * The answers the Claude Code tests replay through svir's Messages route, from every backend.
 */
import type { UpstreamTurn } from './upstream-turn.js';

export const CLAUDE_COMMAND = 'echo svir-roundtrip';
export const CLAUDE_COMMAND_OUTPUT = 'svir-roundtrip';

/** The model asks Claude Code to run CLAUDE_COMMAND with its Bash tool, the arguments split across chunks. */
export const BASH_CALL: UpstreamTurn = {
  steps: [
    { reasoning: 'The user wants a marker echoed.' },
    { content: 'Running the command.' },
    { tools: [{ index: 0, id: 'call_claude_1', name: 'Bash', arguments: '{"command":"echo svir-' }] },
    { tools: [{ index: 0, arguments: 'roundtrip","description":"Print the svir marker"}' }] },
    { finish: 'tool_calls' },
    { usage: { prompt_tokens: 9000, completion_tokens: 30, total_tokens: 9030 } },
  ],
  end: { kind: 'done' },
};

/** The model's answer once the command's output came back. */
export const AFTER_BASH: UpstreamTurn = {
  steps: [
    { reasoning: 'The output is in.' },
    { content: 'The command printed ' },
    { content: 'svir-roundtrip.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 9100, completion_tokens: 8, total_tokens: 9108 } },
  ],
  end: { kind: 'done' },
};
export const AFTER_BASH_EXPECTED = { content: 'The command printed svir-roundtrip.' };
