/**
 * The openai Agents SDK (`@openai/agents`, its OpenAIProvider on the Responses API) and
 * LangChain's ChatOpenAI in Responses mode (`useResponsesApi: true`) through svir, in this
 * process, with every proxy variable at a trap and undici's global dispatcher reading them
 * (EnvHttpProxyAgent): anything but 127.0.0.1 would land at the trap, which must see nothing.
 * An agent turn that calls a function tool and answers from its result; LangChain's answer
 * from its first word (LM Studio's "\n\n" after the reasoning is no answer text).
 */
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import { ChatOpenAI } from '@langchain/openai';
import { EnvHttpProxyAgent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS } from './harness/backend-flavors.js';
import { proxyEnv, startProxyTrap, type ProxyTrap } from './harness/proxy-trap.js';
import { useClientRig } from './harness/use-client-rig.js';
import type { UpstreamTurn } from './harness/upstream-turn.js';

const FLAVOR = BACKEND_FLAVORS.find((flavor) => flavor.name === 'lmstudio');
if (FLAVOR === undefined) throw new Error('no lmstudio flavor');
const flavor = FLAVOR;

const rig = useClientRig({ flavors: [flavor] });
let trap: ProxyTrap;
let dispatcher: Dispatcher;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  trap = await startProxyTrap();
  for (const [name, value] of Object.entries(proxyEnv(trap.url))) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  dispatcher = getGlobalDispatcher();
  setGlobalDispatcher(new EnvHttpProxyAgent());
});
afterAll(async () => {
  setGlobalDispatcher(dispatcher);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await trap.close();
});

const CALL_LOOKUP: UpstreamTurn = {
  steps: [
    { reasoning: 'I need the value.' },
    { content: '\n\n' },
    { tools: [{ index: 0, id: 'call-1', name: 'lookup', arguments: '{"key":"answer"}' }] },
    { finish: 'tool_calls' },
    { usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 } },
  ],
  end: { kind: 'done' },
};
const ANSWER_FROM_RESULT: UpstreamTurn = {
  steps: [
    { reasoning: 'The tool said forty-two.' },
    { content: '\n\n' },
    { content: 'The answer is forty-two.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 60, completion_tokens: 8, total_tokens: 68 } },
  ],
  end: { kind: 'done' },
};

const toolMessage = z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() });

describe('the openai Agents SDK (Responses API)', () => {
  it('runs an agent turn: a function call, its result sent back, the final answer', async () => {
    rig.scriptTurns(flavor, CALL_LOOKUP, ANSWER_FROM_RESULT);
    const before = rig.chatRequestsTo(flavor).length;
    const lookups: string[] = [];
    const lookup = tool({
      name: 'lookup',
      description: 'Look a value up by key.',
      parameters: z.object({ key: z.string() }),
      execute: ({ key }) => {
        lookups.push(key);
        return 'forty-two';
      },
    });
    const agent = new Agent({ name: 'svir-agent', instructions: 'Answer with the tool.', model: flavor.clientModel, tools: [lookup] });
    // The SDK makes its own client (its openai package is its own version) from the base URL and key.
    const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL: rig.baseURL, apiKey: rig.apiKey, useResponses: true }), tracingDisabled: true });
    const result = await runner.run(agent, 'What is the answer?');
    expect(result.finalOutput).toBe('The answer is forty-two.');
    expect(lookups).toEqual(['answer']);
    const requests = rig.chatRequestsTo(flavor).slice(before);
    expect(requests).toHaveLength(2);
    const second = z.looseObject({ messages: z.array(z.looseObject({ role: z.string() })), tools: z.array(z.looseObject({ function: z.looseObject({ strict: z.boolean() }) })) }).parse(requests[1]?.body);
    expect(second.messages[0]).toMatchObject({ role: 'system', content: 'Answer with the tool.' });
    expect(toolMessage.parse(second.messages.find((message) => message.role === 'tool'))).toMatchObject({ content: 'forty-two' });
    // The SDK's zod tool is strict; svir sends what it asked.
    expect(second.tools[0]?.function.strict).toBe(true);
    expect(trap.attempts).toEqual([]);
  }, 60_000);
});

describe('LangChain ChatOpenAI, Responses mode', () => {
  it('answers from the first word, streamed and not, its reasoning apart', async () => {
    const model = new ChatOpenAI({ model: flavor.clientModel, apiKey: rig.apiKey, configuration: { baseURL: rig.baseURL }, maxRetries: 0, useResponsesApi: true });
    rig.scriptTurns(flavor, ANSWER_FROM_RESULT);
    const whole = await model.invoke('What is the answer?');
    expect(whole.text).toBe('The answer is forty-two.');
    rig.scriptTurns(flavor, ANSWER_FROM_RESULT);
    let streamed = '';
    for await (const chunk of await model.stream('What is the answer?')) streamed += chunk.text;
    expect(streamed).toBe('The answer is forty-two.');
    expect(trap.attempts).toEqual([]);
  }, 60_000);

  it('a tool call comes back as a tool call with its parsed arguments', async () => {
    const model = new ChatOpenAI({ model: flavor.clientModel, apiKey: rig.apiKey, configuration: { baseURL: rig.baseURL }, maxRetries: 0, useResponsesApi: true });
    rig.scriptTurns(flavor, CALL_LOOKUP);
    const bound = model.bindTools([{ type: 'function', function: { name: 'lookup', description: 'Look a value up by key.', parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false } } }]);
    const message = await bound.invoke('What is the answer?');
    expect(message.tool_calls).toMatchObject([{ name: 'lookup', args: { key: 'answer' } }]);
    expect(message.text).toBe('');
    expect(trap.attempts).toEqual([]);
  }, 60_000);
});
