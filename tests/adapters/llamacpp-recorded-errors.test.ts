/**
 * The answers a real llama-server (v0.5.0) gave that are not a stream, recorded by
 * scripts/real-llama/record-fixtures.ts into tests/fixtures/llamacpp-http/: the adapter reads
 * each into the error svir answers, and a fake that replays the recording end to end gets the
 * same answer to the client.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { llamacppAdapter } from '../../src/adapters/llamacpp.js';
import { expectErrorAnswer, startSvir, type SvirRig } from '../e2e/backends-rig.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'llamacpp-http');
const recordSchema = z.strictObject({
  description: z.string().min(1),
  request: z.record(z.string(), z.unknown()),
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});
const recorded = new Map(
  readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.slice(0, -'.json'.length), recordSchema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')))]),
);

/** What svir makes of each recording: status, code, and words its message must hold. */
const EXPECTED: Record<string, { status: number; code: string; words: string[] }> = {
  'llamacpp-v0.5.0-overflow': { status: 400, code: 'context_length_exceeded', words: ['maximum context length', '512 tokens', '2730'] },
  'llamacpp-v0.5.0-image': { status: 400, code: 'unsupported_content', words: ['real-llama'] },
  'llamacpp-v0.5.0-ministral-3-two-users': {
    status: 400,
    code: 'invalid_request',
    words: ['real-llama', 'chat template refused the conversation', 'roles must alternate'],
  },
};

function record(name: string): z.infer<typeof recordSchema> {
  const found = recorded.get(name);
  if (found === undefined) throw new Error(`no recording ${name}`);
  return found;
}

describe('recorded llama.cpp v0.5.0 error answers', () => {
  it('every recording has its expectation, and every expectation its recording', () => {
    expect([...recorded.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name}: read as ${expected.status} ${expected.code}`, () => {
      const { status, body } = record(name);
      const error = llamacppAdapter.readError(status, body, { backend: 'real-llama' });
      expect(error.code).toBe(expected.code);
      expect(error.status).toBe(expected.status);
      for (const words of expected.words) expect(error.message).toContain(words);
      // The server's own keys never reach the client.
      expect(error.message).not.toContain('exceed_context_size_error');
    });
  }
});

describe('recorded llama.cpp v0.5.0 error answers, end to end', () => {
  let upstream: ScriptedUpstream;
  let svir: SvirRig;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    svir = await startSvir([{ name: 'real-llama', type: 'llamacpp', upstream, models: ['tiny'] }]);
  });
  afterAll(async () => {
    await svir.close();
    await upstream.close();
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name}: the client gets ${expected.status} ${expected.code} in the one error shape`, async () => {
      const { status, headers, body, request } = record(name);
      upstream.chat({ kind: 'body', status, headers, body });
      const error = expectErrorAnswer(await svir.chat({ ...request, model: 'tiny' }), expected.status, expected.code);
      for (const words of expected.words) expect(error.message).toContain(words);
    });
  }
});
