/**
 * pi, a coding agent, as a user runs it against svir, on both of its wires, in print mode,
 * sealed off (harness/agent-cli.ts: a throwaway HOME, every proxy at a trap that must see
 * nothing), in front of the LM Studio and Ollama fakes:
 * pi (`@mariozechner/pi-coding-agent`): a custom provider in `~/.pi/agent/models.json`
 *   (`api` `openai-completions` or `openai-responses`, `baseUrl` svir), run as
 *   `pi -p PROMPT --provider svir --model M --no-session`. For a reasoning model it sends its
 *   system prompt as role `developer` on the chat wire;
 * Each run answers with the model's text exactly, once, from its first word (LM Studio's "\n\n"
 * after the reasoning is no answer text), and its instructions reach the backend as `system`;
 * in its JSON output (`--mode json`) the reasoning is shown once, not doubled (each word once,
 * on both wires). Qwen Code is not here: npm cannot lock its optional clipboard binaries for
 * other platforms from this machine's registry, and `npm ci` of the test package then fails.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgentCli, type AgentRun } from './harness/agent-cli.js';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { startClientRig, type ClientRig } from './harness/start-client-rig.js';
import type { UpstreamTurn } from './harness/upstream-turn.js';

/** The test package's own installs (tests/package.json): their package.json is not exported. */
const MODULES = join(import.meta.dirname, '..', 'node_modules');
const PI_CLI = join(MODULES, '@mariozechner', 'pi-coding-agent', 'dist', 'cli.js');

const ANSWER = 'Hello from svir.';
const GREETING: UpstreamTurn = {
  steps: [
    { reasoning: 'A short greeting' },
    { reasoning: ' will do.' },
    { content: '\n\n' },
    { content: 'Hello from' },
    { content: ' svir.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 } },
  ],
  end: { kind: 'done' },
};

const FLAVORS = BACKEND_FLAVORS.filter((flavor) => flavor.name === 'lmstudio' || flavor.name === 'ollama');
let rig: ClientRig;

beforeAll(async () => {
  rig = await startClientRig({ flavors: FLAVORS });
});
afterAll(async () => {
  await rig.close();
});

type Wire = 'chat' | 'responses';

function runPi(flavor: BackendFlavor, wire: Wire, mode: 'print' | 'json' = 'print'): Promise<AgentRun> {
  const models = {
    providers: {
      svir: {
        baseUrl: rig.baseURL,
        api: wire === 'chat' ? 'openai-completions' : 'openai-responses',
        apiKey: rig.apiKey,
        models: [{ id: flavor.clientModel, reasoning: true, input: ['text'], contextWindow: 32768, maxTokens: 4096 }],
      },
    },
  };
  return runAgentCli({
    node: process.execPath,
    args: [PI_CLI, ...(mode === 'json' ? ['--mode', 'json'] : ['-p']), 'Say hello.', '--provider', 'svir', '--model', flavor.clientModel, '--no-session', '--no-tools'],
    files: { '.pi/agent/models.json': JSON.stringify(models) },
  });
}

const messageSchema = z.array(z.looseObject({ role: z.string() }));

describe.each(FLAVORS.map((flavor) => [flavor.name, flavor] as const))('coding agents through svir, backend %s', (_name, flavor) => {
  describe.each([['pi', runPi]] as const)('%s', (_agent, runAgent) => {
    it.each(['chat', 'responses'] as const)('answers over the %s wire', async (wire) => {
      rig.script(flavor, GREETING);
      const before = rig.chatRequestsTo(flavor).length;
      const run = await runAgent(flavor, wire);
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
      // The answer, once, from its first word.
      expect(run.stdout.split(ANSWER)).toHaveLength(2);
      expect(run.stdout.trimEnd().endsWith(ANSWER)).toBe(true);
      expect(run.stdout.slice(0, run.stdout.indexOf(ANSWER))).not.toMatch(/\n\s*\n$/);
      expect(run.strayConnections).toEqual([]);
      const requests = rig.chatRequestsTo(flavor).slice(before);
      expect(requests.length).toBeGreaterThan(0);
      const body = z.looseObject({ messages: messageSchema }).parse(requests[0]?.body);
      expect(body.messages[0]?.role).toBe('system');
      expect(body.messages.some((message) => message.role === 'developer')).toBe(false);
    }, 120_000);
  });
});

/** pi's `--mode json` events, as far as the reasoning test reads them (its docs/json.md). */
const piEventSchema = z.looseObject({
  type: z.string(),
  message: z.looseObject({ role: z.string(), content: z.array(z.looseObject({ type: z.string(), thinking: z.string().optional(), text: z.string().optional() })) }).optional(),
});

describe.each(FLAVORS.map((flavor) => [flavor.name, flavor] as const))('pi shows the reasoning once, backend %s', (_name, flavor) => {
  it.each(['chat', 'responses'] as const)('over the %s wire', async (wire) => {
    rig.script(flavor, GREETING);
    const run = await runPi(flavor, wire, 'json');
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.strayConnections).toEqual([]);
    const ends = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => piEventSchema.parse(JSON.parse(line)))
      .filter((event) => event.type === 'message_end' && event.message?.role === 'assistant');
    const content = ends.at(-1)?.message?.content ?? [];
    expect(content.filter((part) => part.type === 'thinking').map((part) => part.thinking).join('')).toBe('A short greeting will do.');
    expect(content.filter((part) => part.type === 'text').map((part) => part.text).join('')).toBe(ANSWER);
  }, 120_000);
});
