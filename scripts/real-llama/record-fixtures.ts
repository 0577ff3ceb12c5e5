/**
 * Records the real llama-server's answers to the cases of tests/real/recorded-cases.ts as golden
 * fixtures: the raw bytes of each stream as tests/fixtures/llamacpp/llamacpp-v0.5.0-<case>.sse,
 * with the clean output svir makes of them as <case>.json (review it before committing: it is
 * what `npm test` will hold svir to), and each answer that is not a stream as
 * tests/fixtures/llamacpp-http/llamacpp-v0.5.0-<case>.json (status, headers, body).
 *
 *   bash scripts/real-llama/setup.sh && npx tsx scripts/real-llama/record-fixtures.ts [case...]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { llamacppAdapter } from '../../src/adapters/llamacpp.js';
import { startRealLlamaServer, type RealLlamaServer } from '../../tests/real/llama-server.js';
import {
  FIXTURE_PREFIX,
  LLAMACPP_VERSION,
  RECORDED_CASES,
  RECORDED_HTTP_CASES,
  SERVER_ARGS,
  upstreamCall,
  type RecordedCase,
  type ServerVariant,
} from '../../tests/real/recorded-cases.js';
import { FIXTURE_CTX_KEYS, runFixture } from '../../tests/helpers/replay-fixture.js';

const repo = join(import.meta.dirname, '..', '..');
const streamDir = join(repo, 'tests', 'fixtures', 'llamacpp');
const httpDir = join(repo, 'tests', 'fixtures', 'llamacpp-http');
/** Headers worth keeping: the rest (date, keep-alive) say nothing about the dialect. */
const KEPT_HEADERS = ['content-type', 'x-accel-buffering', 'cache-control', 'access-control-allow-origin', 'server'];

async function send(server: RealLlamaServer, recorded: RecordedCase) {
  const { call, ctx } = upstreamCall(recorded, `${server.url}/v1`);
  const response = await fetch(call.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...call.headers },
    body: JSON.stringify(call.body),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: response.status, headers, bytes, body: call.body, ctx };
}

async function main(): Promise<void> {
  const only = new Set(process.argv.slice(2));
  const wanted = (c: RecordedCase) => only.size === 0 || only.has(c.name);
  const servers = new Map<ServerVariant, RealLlamaServer>();
  // One server at a time: the cases come grouped by variant.
  const serverFor = async (variant: ServerVariant) => {
    let server = servers.get(variant);
    if (server === undefined) {
      for (const [other, running] of servers) {
        servers.delete(other);
        await running.stop();
      }
      const settings = SERVER_ARGS[variant];
      if (settings === undefined) throw new Error(`no server variant ${variant}`);
      server = await startRealLlamaServer(settings.model, settings.args);
      servers.set(variant, server);
    }
    return server;
  };
  try {
    for (const recorded of RECORDED_CASES.filter(wanted)) {
      const answer = await send(await serverFor(recorded.server), recorded);
      if (answer.status !== 200 || !answer.headers['content-type']?.startsWith('text/event-stream')) {
        throw new Error(`${recorded.name}: expected a stream, got ${answer.status}: ${new TextDecoder().decode(answer.bytes)}`);
      }
      const name = `${FIXTURE_PREFIX}${recorded.name}`;
      writeFileSync(join(streamDir, `${name}.sse`), answer.bytes);
      // The fixture keeps the context keys a fixture may set (not secrets, nor the per-stream
      // memo the reader fills in), taken before the run.
      const kept = Object.fromEntries(Object.entries(answer.ctx).filter(([key]) => FIXTURE_CTX_KEYS.includes(key)));
      const outcome = runFixture([answer.bytes], { readEvent: llamacppAdapter.readEvent, ctx: { ...answer.ctx } });
      const spec = {
        description: `llama.cpp ${LLAMACPP_VERSION} (recorded, tiny model): ${recorded.description}`,
        ctx: { ...kept, model: recorded.request['model'] },
        chunks: outcome.chunks,
        error: outcome.error === null ? null : { code: outcome.error.code, messageIncludes: outcome.error.message.slice(0, 40) },
        done: outcome.done,
      };
      writeFileSync(join(streamDir, `${name}.json`), `${JSON.stringify(spec, null, 2)}\n`);
      console.log(`${name}.sse: ${answer.bytes.length} bytes, ${outcome.chunks.length} clean chunks${outcome.error ? `, error ${outcome.error.code}` : ''}`);
    }
    for (const recorded of RECORDED_HTTP_CASES.filter(wanted)) {
      const answer = await send(await serverFor(recorded.server), recorded);
      const name = `${FIXTURE_PREFIX}${recorded.name}`;
      const record = {
        description: `llama.cpp ${LLAMACPP_VERSION} (recorded, tiny model): ${recorded.description}`,
        request: answer.body,
        status: answer.status,
        headers: answer.headers,
        body: new TextDecoder().decode(answer.bytes),
      };
      writeFileSync(join(httpDir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
      console.log(`${name}.json: ${answer.status} ${record.body.slice(0, 120)}`);
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }
}

await main();
