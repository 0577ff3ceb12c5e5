/**
 * Claude Code (`claude -p`, the real binary from npm) on svir's `POST /v1/messages`, in front of
 * a fake chat server of every backend type (docs/messages.md). Claude Code sends a system
 * message in the middle of `messages`, `max_tokens: 32000`, adaptive thinking, a deferred tool
 * and Anthropic's betas; reads only named events; falls back to `stream: false` (every turn
 * twice) when it cannot parse a stream; reads "prompt is too long: N tokens > M maximum"; and
 * resumes a turn cut by `event: error` (reference: docs/messages.md). It runs sealed off
 * (harness/claude-code-cli.ts): any connection to anything but svir on 127.0.0.1 is recorded
 * and fails the test.
 *
 * If Claude Code's binary cannot run on this machine the tests fail (beforeAll says why): they
 * are never skipped silently.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { claudeCodeEnv, claudeCodeVersion, runClaudeCode, type ClaudeRun } from './harness/claude-code-cli.js';
import { contextOverflowResponse } from './harness/context-overflow-response.js';
import { readChatRequest } from './harness/read-chat-request.js';
import { transcript } from './harness/run-sealed-cli.js';
import { renderUpstreamTurn } from './harness/render-upstream-turn.js';
import { AFTER_BASH, AFTER_BASH_EXPECTED, BASH_CALL, CLAUDE_COMMAND, CLAUDE_COMMAND_OUTPUT } from './harness/messages-scenarios.js';
import { MID_STREAM_FAILURE, REASONING_AND_TEXT, REASONING_AND_TEXT_EXPECTED } from './harness/scenarios.js';
import { useClientRig } from './harness/use-client-rig.js';

/** A Claude Code run takes a few seconds on a loaded machine; two turns and a command take longer. */
const CLAUDE_TEST_TIMEOUT_MS = 120_000;

const rig = useClientRig();
const origin = (): string => rig.baseURL.replace(/\/v1$/, '');

beforeAll(async () => {
  expect(await claudeCodeVersion()).toMatch(/\d+\.\d+\.\d+/);
}, 60_000);

function claude(flavor: BackendFlavor, prompt: string): Promise<ClaudeRun> {
  return runClaudeCode({ baseURL: origin(), apiKey: rig.apiKey, model: flavor.clientModel, prompt });
}


function expectSucceeded(run: ClaudeRun): void {
  expect(run.timedOut, transcript(run)).toBe(false);
  expect(run.exitCode, transcript(run)).toBe(0);
  expect(run.result?.is_error, transcript(run)).toBe(false);
  expect(run.strayConnections).toEqual([]);
}

it("the README's environment for Claude Code is the one these tests run it with", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /\*\*Claude Code\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'a sh block after "**Claude Code**" in the README').toBeDefined();
  const settings = Object.fromEntries(
    (block ?? '')
      .split('\n')
      .map((line) => /^export (\w+)=(.*)$/.exec(line.trim()))
      .flatMap((match) => (match === null ? [] : [[match[1], match[2]]])),
  );
  expect(settings).toEqual(claudeCodeEnv({ baseURL: 'http://127.0.0.1:4000', apiKey: '$SVIR_KEY', model: 'qwen3-coder-30b' }));
});

describe.each(BACKEND_FLAVORS)('Claude Code on /v1/messages, backend $name', (flavor) => {
  it(
    'answers a prompt: the reasoning shown as thinking, the final text, one streamed request (no fallback to stream: false)',
    async () => {
      rig.script(flavor, REASONING_AND_TEXT);
      const before = rig.chatRequestsTo(flavor).length;
      const run = await claude(flavor, 'Count to three in words.');
      expectSucceeded(run);
      expect(run.result?.result).toBe(REASONING_AND_TEXT_EXPECTED.content);
      const thinking = run.assistantBlocks.filter((block) => block.type === 'thinking').map((block) => block.thinking ?? '');
      expect(thinking.join(''), transcript(run)).toContain(REASONING_AND_TEXT_EXPECTED.reasoning);
      // One turn, one request: a stream Claude Code could not read would have been asked again with stream: false.
      expect(rig.chatRequestsTo(flavor)).toHaveLength(before + 1);
      const sent = readChatRequest(rig.chatRequestsTo(flavor)[before]);
      // Claude Code's mid-list system message folded into the one leading system message.
      expect(sent.messages[0]?.role).toBe('system');
      expect(sent.messages.slice(1).map((m) => m.role)).not.toContain('system');
      expect(sent.tools).toContain('Bash');
      expect(sent.tools).not.toContain('DeferredToolPlaceholder');
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it(
    'one Bash round trip: the fake asks for a command, Claude Code runs it and its tool_result reaches the fake as a tool message',
    async () => {
      rig.scriptTurns(flavor, BASH_CALL, AFTER_BASH);
      const before = rig.chatRequestsTo(flavor).length;
      const run = await claude(flavor, `Run: ${CLAUDE_COMMAND}`);
      expectSucceeded(run);
      const calls = run.assistantBlocks.filter((block) => block.type === 'tool_use');
      expect(calls, transcript(run)).toHaveLength(1);
      expect(calls[0]).toMatchObject({ name: 'Bash', input: { command: CLAUDE_COMMAND } });
      expect(run.result?.result).toBe(AFTER_BASH_EXPECTED.content);

      expect(rig.chatRequestsTo(flavor)).toHaveLength(before + 2);
      const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
      const callAt = sent.messages.findIndex((message) => message.toolCalls !== undefined);
      expect(sent.messages[callAt]?.toolCalls?.[0]).toMatchObject({ id: 'call_claude_1', name: 'Bash' });
      const results = sent.messages.filter((message) => message.role === 'tool');
      expect(results).toHaveLength(1);
      expect(results[0]?.toolCallId).toBe('call_claude_1');
      expect(results[0]?.text).toContain(CLAUDE_COMMAND_OUTPUT);
      expect(sent.messages.findIndex((message) => message.role === 'tool')).toBe(callAt + 1);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it(
    'a failure after the answer began: Claude Code resumes the turn at once and completes it',
    async () => {
      // The failure comes once Claude Code has had time to read the partial answer (a cut right
      // after the last words may lose them, and then there is nothing to resume).
      rig.upstreamOf(flavor).route('POST', flavor.chatPath, renderUpstreamTurn(flavor, MID_STREAM_FAILURE, { failAfterMs: 500 }), renderUpstreamTurn(flavor, REASONING_AND_TEXT));
      const before = rig.chatRequestsTo(flavor).length;
      const run = await claude(flavor, 'Count.');
      expectSucceeded(run);
      expect(rig.chatRequestsTo(flavor).length, transcript(run)).toBe(before + 2);
      // The resumed request carries the partial answer back.
      const resumed = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
      expect(resumed.messages.some((m) => m.role === 'assistant' && (m.text ?? '').includes('One, two'))).toBe(true);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  const overflow = contextOverflowResponse(flavor.dialect);
  it.runIf(overflow !== undefined)(
    'a prompt the backend has no room for is reported by Claude Code as a too-long prompt',
    async () => {
      if (overflow === undefined) return;
      rig.scriptRaw(flavor, overflow);
      const run = await claude(flavor, 'A prompt that does not fit.');
      expect(run.timedOut, transcript(run)).toBe(false);
      expect(run.exitCode, transcript(run)).not.toBe(0);
      expect(run.strayConnections).toEqual([]);
      expect(`${run.result?.result ?? ''} ${run.stdout}`, transcript(run)).toMatch(/prompt is too long/i);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
