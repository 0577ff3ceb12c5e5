/**
 * The golden fixtures recorded from the real server (tests/fixtures/llamacpp/llamacpp-v0.5.0-*,
 * tests/fixtures/llamacpp-http/) are still what it answers: each recorded request is sent again
 * as svir would send it, and the clean output svir makes of the live answer is the recorded
 * one, up to what the server draws at random (completion and call ids, `created`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { llamacppAdapter } from '../../src/adapters/llamacpp.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { runFixture } from '../helpers/replay-fixture.js';
import { startRealLlamaServer, type RealLlamaServer } from './llama-server.js';
import {
  FIXTURE_PREFIX,
  RECORDED_CASES,
  RECORDED_HTTP_CASES,
  SERVER_ARGS,
  upstreamCall,
  type RecordedCase,
  type ServerVariant,
} from './recorded-cases.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
/**
 * One server per variant, started when a case first needs it; the cases come grouped by variant,
 * so a variant's server stops once the next one's case comes (a few servers at a time at most on
 * the shared machine).
 */
const servers = new Map<ServerVariant, RealLlamaServer>();

async function serverFor(variant: ServerVariant): Promise<RealLlamaServer> {
  const running = servers.get(variant);
  if (running !== undefined) return running;
  for (const [other, server] of servers) {
    servers.delete(other);
    await server.stop();
  }
  const args = SERVER_ARGS[variant];
  if (args === undefined) throw new Error(`no server variant ${variant}`);
  const server = await startRealLlamaServer(args.model, args.args);
  servers.set(variant, server);
  return server;
}

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop()));
});

async function sendLive(recorded: RecordedCase) {
  const server = await serverFor(recorded.server);
  const { call, ctx } = upstreamCall(recorded, `${server.url}/v1`);
  const response = await fetch(call.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...call.headers },
    body: JSON.stringify(call.body),
  });
  return { response, ctx };
}

/** The clean chunks with what the server draws at random replaced by placeholders. */
function withoutRandom(chunks: readonly unknown[]): unknown[] {
  return chunks.map((chunk) => {
    const copy = structuredClone(chunk) as CleanChunk;
    copy.id = 'ID';
    copy.created = 0;
    for (const choice of copy.choices) {
      for (const call of choice.delta.tool_calls ?? []) if (call.id !== undefined) call.id = 'CALL';
    }
    return copy;
  });
}

const specSchema = z.looseObject({ chunks: z.array(z.unknown()) });
const httpSchema = z.looseObject({ status: z.number(), headers: z.record(z.string(), z.string()), body: z.string() });

describe(`the recorded fixtures are what the real server still answers`, () => {
  for (const recorded of RECORDED_CASES) {
    it(`${FIXTURE_PREFIX}${recorded.name}: ${recorded.description}`, async () => {
      const spec = specSchema.parse(JSON.parse(readFileSync(join(fixtures, 'llamacpp', `${FIXTURE_PREFIX}${recorded.name}.json`), 'utf8')));
      const { response, ctx } = await sendLive(recorded);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const outcome = runFixture([bytes], { readEvent: llamacppAdapter.readEvent, ctx });
      expect(withoutRandom(outcome.chunks)).toEqual(withoutRandom(spec.chunks));
    });
  }

  for (const recorded of RECORDED_HTTP_CASES) {
    it(`${FIXTURE_PREFIX}${recorded.name}: ${recorded.description}`, async () => {
      const record = httpSchema.parse(JSON.parse(readFileSync(join(fixtures, 'llamacpp-http', `${FIXTURE_PREFIX}${recorded.name}.json`), 'utf8')));
      const { response } = await sendLive(recorded);
      expect(response.status).toBe(record.status);
      expect(JSON.parse(await response.text())).toEqual(JSON.parse(record.body));
    });
  }
});
