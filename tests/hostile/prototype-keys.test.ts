/**
 * `__proto__`, `constructor` and `prototype` keys anywhere in a body: refused in the one shape
 * or carried as plain data, never a 500, and never a change to any object's prototype in svir.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  // An alias table is configured so that alias lookups run on every name tried here.
  svir = await startSvir({
    aliases: { fast: 'm', other: 'fake/m' },
    backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'] }],
  });
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

const msg = '{"role":"user","content":"hi"}';
const tool = (parameters: string): string =>
  `{"type":"function","function":{"name":"get_weather","parameters":${parameters}}}`;

/** Written as text: JSON.stringify of an object literal would drop or apply these keys. */
const BODIES: Array<[string, string]> = [
  ['__proto__ at the top', `{"model":"m","messages":[${msg}],"__proto__":{"polluted":"yes"}}`],
  ['__proto__ in a message', `{"model":"m","messages":[{"role":"user","content":"hi","__proto__":{"polluted":"yes"}}]}`],
  ['constructor.prototype at the top', `{"model":"m","messages":[${msg}],"constructor":{"prototype":{"polluted":"yes"}}}`],
  ['__proto__ in tool parameters', `{"model":"m","messages":[${msg}],"tools":[${tool('{"type":"object","__proto__":{"polluted":"yes"}}')}]}`],
  ['a property named constructor in a schema', `{"model":"m","messages":[${msg}],"tools":[${tool('{"type":"object","properties":{"constructor":{"type":"string"}}}')}]}`],
  ['a property named prototype', `{"model":"m","messages":[${msg}],"metadata":{"prototype":"x","toString":"y","hasOwnProperty":"z"}}`],
  ['__proto__ as the model name', `{"model":"__proto__","messages":[${msg}]}`],
  ['constructor as the model name', `{"model":"constructor","messages":[${msg}]}`],
  ['toString as the model name', `{"model":"toString","messages":[${msg}]}`],
  ['__proto__ in stream_options', `{"model":"m","messages":[${msg}],"stream":true,"stream_options":{"__proto__":{"include_usage":true}}}`],
  ['__proto__ in response_format', `{"model":"m","messages":[${msg}],"response_format":{"__proto__":{"type":"json_object"}}}`],
];

function prototypesClean(): boolean {
  const probe: Record<string, unknown> = {};
  return (
    probe.polluted === undefined &&
    Reflect.get(Object.prototype, 'polluted') === undefined &&
    Reflect.get(Array.prototype, 'polluted') === undefined &&
    Reflect.get(Function.prototype, 'polluted') === undefined
  );
}

describe('prototype keys', () => {
  it.each(BODIES)('%s: a refusal in the one shape or plain data, never a 500 or a polluted prototype', async (_name, body) => {
    const before = upstream.requests.length;
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBeLessThan(500);
    if (response.statusCode >= 400) expect(readErrorBody(text), text).toBeDefined();
    expect(prototypesClean()).toBe(true);
    // Whatever reached the upstream carries the keys as data at most, never as a prototype.
    for (const seen of upstream.requests.slice(before)) {
      expect(seen.body?.toString('utf8') ?? '').not.toMatch(/"polluted"\s*:\s*"yes"[^]*"polluted"/);
      expect(prototypesClean()).toBe(true);
    }
  });

  it('keeps model names that are names of Object.prototype members unknown, not routed', async () => {
    for (const model of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const response = await request(`${svir.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await response.body.text();
      expect(response.statusCode, `${model}: ${text}`).toBe(404);
      expect(readErrorBody(text)?.code).toBe('model_not_found');
    }
    for (const model of ['__proto__', 'constructor', 'toString']) {
      const response = await request(`${svir.url}/v1/models/${model}`);
      const text = await response.body.text();
      expect(response.statusCode, `${model}: ${text}`).toBe(404);
      expect(readErrorBody(text)?.code).toBe('model_not_found');
    }
  });
});
