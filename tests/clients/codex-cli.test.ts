/**
 * Codex CLI (`codex exec`, the real binary from npm) on svir's `POST /v1/responses`, in front of
 * a fake chat server of every backend type. Codex is stateless (`store: false`, the whole
 * history every turn), sends tools svir cannot pass to a chat server as they are (a `namespace`
 * of functions, the built-in `web_search`), takes its final message and its tool calls only
 * from `response.output_item.done`, and needs `response.completed` with `usage.total_tokens`
 * (docs/responses.md says what it reads). It runs sealed off (harness/codex-cli.ts): any connection to
 * anything but svir on 127.0.0.1 is recorded and fails the test.
 *
 * If Codex's binary cannot run on this machine the tests fail (beforeAll says why): they are
 * never skipped silently.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { codexProviderToml, codexVersion, runCodexExec, type CodexRun } from './harness/codex-cli.js';
import { contextOverflowResponse } from './harness/context-overflow-response.js';
import { readChatRequest } from './harness/read-chat-request.js';
import { transcript } from './harness/run-sealed-cli.js';
import {
  CODEX_AFTER_EXEC,
  CODEX_AFTER_EXEC_EXPECTED,
  CODEX_COMMAND,
  CODEX_COMMAND_OUTPUT,
  CODEX_EXEC_CALL,
  CODEX_NAMESPACED_CALL,
} from './harness/responses-scenarios.js';
import { MID_STREAM_FAILURE, REASONING_AND_TEXT, REASONING_AND_TEXT_EXPECTED } from './harness/scenarios.js';
import { useClientRig } from './harness/use-client-rig.js';

/** A Codex run takes a few seconds on a loaded machine; two turns and a command take longer. */
const CODEX_TEST_TIMEOUT_MS = 120_000;

const rig = useClientRig();

beforeAll(async () => {
  // Fails every test below, with the reason, when the binary is missing or does not run here.
  expect(await codexVersion()).toMatch(/^codex-cli \d+\.\d+\.\d+/);
}, 60_000);

function codex(flavor: BackendFlavor, prompt: string): Promise<CodexRun> {
  return runCodexExec({ baseURL: rig.baseURL, apiKey: rig.apiKey, model: flavor.clientModel, prompt });
}


function expectCompleted(run: CodexRun): void {
  expect(run.timedOut, transcript(run)).toBe(false);
  expect(run.exitCode, transcript(run)).toBe(0);
  expect(run.events.map((event) => event.type), transcript(run)).toContain('turn.completed');
  expect(run.events.map((event) => event.type)).not.toContain('turn.failed');
  // Codex reached nothing but svir.
  expect(run.strayConnections).toEqual([]);
}

/** The settings of a TOML text, one `key = value` or `[table]` a line, comments and blank lines left out. */
function tomlSettings(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

it('the README\'s config.toml for Codex is the provider block these tests run Codex with', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /\*\*Codex CLI\*\*[\s\S]*?```toml\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'a toml block after "**Codex CLI**" in the README').toBeDefined();
  expect(tomlSettings(block ?? '')).toEqual(tomlSettings(codexProviderToml({ baseURL: 'http://127.0.0.1:4000/v1', model: 'qwen3.8-27b' })));
});

describe.each(BACKEND_FLAVORS)('Codex CLI on /v1/responses, backend $name', (flavor) => {
  it(
    'codex exec answers a prompt: the final message, the reasoning shown, the request svir made of it',
    async () => {
      rig.script(flavor, REASONING_AND_TEXT);
      const before = rig.chatRequestsTo(flavor).length;
      const run = await codex(flavor, 'Count to three in words.');
      expectCompleted(run);
      expect(run.lastMessage).toBe(REASONING_AND_TEXT_EXPECTED.content);
      const reasoning = run.items.filter((item) => item.type === 'reasoning').map((item) => item.text ?? '');
      expect(reasoning.join('')).toContain(REASONING_AND_TEXT_EXPECTED.reasoning);
      // Shown once: Codex asks for a summary and gets the reasoning in that form only.
      expect(reasoning.join('').split(REASONING_AND_TEXT_EXPECTED.reasoning)).toHaveLength(2);

      expect(rig.chatRequestsTo(flavor)).toHaveLength(before + 1);
      const sent = readChatRequest(rig.chatRequestsTo(flavor)[before]);
      expect(sent.messages.at(-1)).toMatchObject({ role: 'user', text: 'Count to three in words.' });
      // Codex's own tools reach the backend as functions; its built-in web_search does not.
      expect(sent.tools).toContain('exec_command');
      expect(sent.tools.every((name) => !name.startsWith('<'))).toBe(true);
    },
    CODEX_TEST_TIMEOUT_MS,
  );

  it(
    'one tool round trip: the fake asks for a shell command, Codex runs it and sends its output back, the fake answers',
    async () => {
      rig.scriptTurns(flavor, CODEX_EXEC_CALL, CODEX_AFTER_EXEC);
      const before = rig.chatRequestsTo(flavor).length;
      const run = await codex(flavor, 'Run the command and tell me what it printed.');
      expectCompleted(run);

      const commands = run.items.filter((item) => item.type === 'command_execution');
      expect(commands, transcript(run)).toHaveLength(1);
      expect(commands[0]).toMatchObject({ command: expect.stringContaining(CODEX_COMMAND) as unknown, exit_code: 0 });
      expect(run.lastMessage).toBe(CODEX_AFTER_EXEC_EXPECTED.content);

      // The second turn carried the call and the command's output back to the backend.
      expect(rig.chatRequestsTo(flavor)).toHaveLength(before + 2);
      const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
      const callAt = sent.messages.findIndex((message) => message.toolCalls !== undefined);
      expect(sent.messages[callAt]?.toolCalls).toEqual([
        { id: 'call_codex_1', name: 'exec_command', arguments: '{"cmd":"echo svir-roundtrip","login":false}' },
      ]);
      const results = sent.messages.filter((message) => message.role === 'tool');
      expect(results).toHaveLength(1);
      expect(results[0]?.toolCallId).toBe('call_codex_1');
      expect(results[0]?.text).toContain(CODEX_COMMAND_OUTPUT);
      expect(sent.messages.findIndex((message) => message.role === 'tool')).toBeGreaterThan(callAt);
    },
    CODEX_TEST_TIMEOUT_MS,
  );

  it(
    'a call to a function of Codex\'s namespace tool (flattened for the backend) comes back split, and Codex runs that function',
    async () => {
      rig.scriptTurns(flavor, CODEX_NAMESPACED_CALL, CODEX_AFTER_EXEC);
      const before = rig.chatRequestsTo(flavor).length;
      const run = await codex(flavor, 'Close the agent no-such-agent.');
      expectCompleted(run);
      expect(readChatRequest(rig.chatRequestsTo(flavor)[before]).tools).toContain('multi_agent_v1__close_agent');
      const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
      const result = sent.messages.find((message) => message.role === 'tool');
      expect(result?.toolCallId).toBe('call_codex_ns');
      // Codex's multi-agent handler answered (an unknown agent id), not its "unsupported call".
      expect(result?.text).toContain('no-such-agent');
      expect(result?.text).not.toContain('unsupported call');
    },
    CODEX_TEST_TIMEOUT_MS,
  );

  it(
    'a failure after the answer began fails the turn with svir\'s error, not a silent end',
    async () => {
      rig.script(flavor, MID_STREAM_FAILURE);
      const run = await codex(flavor, 'Count.');
      expect(run.timedOut, transcript(run)).toBe(false);
      expect(run.exitCode, transcript(run)).not.toBe(0);
      expect(run.strayConnections).toEqual([]);
      const failed = run.events.find((event) => event.type === 'turn.failed');
      expect(failed?.error?.message, transcript(run)).toContain(flavor.name);
    },
    CODEX_TEST_TIMEOUT_MS,
  );

  const overflow = contextOverflowResponse(flavor.dialect);
  it.runIf(overflow !== undefined)(
    'a prompt the backend has no room for fails the turn with Codex\'s own context-window error',
    async () => {
      if (overflow === undefined) return;
      rig.scriptRaw(flavor, overflow);
      const run = await codex(flavor, 'A prompt that does not fit.');
      expect(run.timedOut, transcript(run)).toBe(false);
      expect(run.exitCode, transcript(run)).not.toBe(0);
      expect(run.strayConnections).toEqual([]);
      const failed = run.events.find((event) => event.type === 'turn.failed');
      expect(failed?.error?.message, transcript(run)).toMatch(/context window/);
    },
    CODEX_TEST_TIMEOUT_MS,
  );
});
