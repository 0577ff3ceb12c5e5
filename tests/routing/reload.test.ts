/**
 * Config reload: a new config takes over for new requests (backends, aliases, queue limits)
 * while open streams finish on what they started with; through the program, SIGHUP reloads the
 * file, a bad file is refused with a log line and the running config stays, and
 * `server.watchConfig` reloads on a change of the file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startScriptedUpstream, sse, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { buildChatEvents } from '../faults/chat-events.js';
import { parseCleanStream } from '../faults/parse-clean-stream.js';
import { buildCli, type BuiltCli } from '../first-run/build-cli.js';
import { answer, chatBody, fleetConfig, post, startFleet, until, type Fleet } from './helpers/start-fleet.js';

const modelIds = z.object({ data: z.array(z.object({ id: z.string(), owned_by: z.string() })) });
async function listed(url: string): Promise<string[]> {
  const response = await fetch(`${url}/v1/models`);
  return modelIds
    .parse(await response.json())
    .data.map((m) => `${m.id}@${m.owned_by}`)
    .sort();
}

describe('runtime reload (in process)', () => {
  let fleet: Fleet | undefined;
  const extras: ScriptedUpstream[] = [];
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
    await Promise.all(extras.splice(0).map((u) => u.close()));
  });

  it('puts backends, aliases and limits in force for new requests; an open stream finishes undisturbed', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['ma'], extra: { maxConcurrent: 1 } }] });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const events = buildChatEvents({ content: ['before ', 'and after'] });
    fleet.upstream('a').chat(
      { kind: 'sse', pieces: [sse(events[0] ?? ''), sse(events[1] ?? ''), { waitFor: gate }, ...events.slice(2).map((e) => sse(e)), sse('[DONE]')] },
      answer(['a again']),
    );
    const open = post(fleet.url, chatBody('ma', { stream: true }));
    await until(() => fleet!.upstream('a').requestsTo('POST', '/v1/chat/completions').length === 1, 'the stream open');

    const b = await startScriptedUpstream();
    extras.push(b);
    b.models(['mb']);
    b.chat(answer(['from b']));
    const next = fleetConfig(
      {
        backends: [
          // Other timeouts: a new connection pool for `a`; the open stream keeps the old one.
          { name: 'a', extra: { maxConcurrent: 3, timeouts: { connectMs: 4_000 } } },
          { name: 'b' },
        ],
        aliases: { quick: 'b/mb' },
      },
      new Map([
        ['a', fleet.upstream('a').baseUrl],
        ['b', b.baseUrl],
      ]),
    );
    fleet.app.svir.reload(next);
    expect(fleet.app.svir.config).toBe(next);
    expect(fleet.app.svir.queues.get('a')?.stats()).toMatchObject({ active: 1, limits: { maxConcurrent: 3 } });

    // New requests see the new config while the old stream is still open.
    const viaAlias = await post(fleet.url, chatBody('quick', { stream: true }));
    expect(viaAlias.headers.get('x-svir-backend')).toBe('b');
    expect(parseCleanStream(viaAlias.text).content).toBe('from b');
    // maxConcurrent went from 1 to 3: a second request on `a` runs beside the open one.
    const beside = await post(fleet.url, chatBody('ma'));
    expect(beside.status).toBe(200);
    expect(await listed(fleet.url)).toEqual(['ma@a', 'mb@b', 'quick@b']);

    release();
    const finished = await open;
    const stream = parseCleanStream(finished.text);
    expect(stream.content).toBe('before and after');
    expect(stream.errors).toEqual([]);
    expect(stream.done && stream.doneLast).toBe(true);
  });

  it('finishes an open stream on a backend the new config removed', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['ma'] }] });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    fleet.upstream('a').chat(answer(['still here'], { before: [{ waitFor: gate }] }));
    const open = post(fleet.url, chatBody('ma', { stream: true }));
    await until(() => fleet!.upstream('a').requestsTo('POST', '/v1/chat/completions').length === 1, 'the stream open');
    const b = await startScriptedUpstream();
    extras.push(b);
    b.models(['mb']);
    fleet.app.svir.reload(fleetConfig({ backends: [{ name: 'b' }] }, new Map([['b', b.baseUrl]])));
    expect((await post(fleet.url, chatBody('ma'))).status).toBe(404);
    release();
    const stream = parseCleanStream((await open).text);
    expect(stream.content).toBe('still here');
    expect(stream.done).toBe(true);
  });
});

describe('svir program: SIGHUP and watchConfig', () => {
  let built: BuiltCli;
  let dir: string;
  let a: ScriptedUpstream;
  let child: ChildProcessWithoutNullStreams | undefined;
  beforeAll(async () => {
    built = buildCli();
    dir = mkdtempSync(join(tmpdir(), 'svir-reload-'));
    a = await startScriptedUpstream();
    a.models(['qwen3.8-27b']);
    a.chat(answer(['hello']));
  });
  afterAll(async () => {
    await a.close();
    rmSync(dir, { recursive: true, force: true });
    built.remove();
  });
  afterEach(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    child = undefined;
  });

  function yaml(aliases: Record<string, string>, extra = ''): string {
    const aliasLines = Object.entries(aliases).map(([k, v]) => `  ${k}: ${v}`);
    return [
      'server:',
      '  host: 127.0.0.1',
      '  port: 0',
      extra,
      aliasLines.length > 0 ? 'aliases:' : 'aliases: {}',
      ...aliasLines,
      'backends:',
      '  - name: lms',
      '    type: lmstudio',
      `    url: ${a.baseUrl}`,
      '',
    ].join('\n');
  }

  async function start(file: string): Promise<{ url: string; output: () => string }> {
    const env: NodeJS.ProcessEnv = {};
    for (const key of ['PATH', 'HOME', 'TMPDIR']) if (process.env[key] !== undefined) env[key] = process.env[key];
    const proc = spawn(process.execPath, [built.cli, '--config', file], { cwd: built.root, env });
    child = proc;
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stdout.on('data', (t: string) => {
      out += t;
    });
    proc.stderr.on('data', (t: string) => {
      out += t;
    });
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 'svir to listen', 15_000);
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (match?.[1] === undefined) throw new Error(out);
    return { url: match[1], output: () => out };
  }

  it('reloads on SIGHUP; refuses a bad file with a log line and keeps serving the old config', async () => {
    const file = join(dir, 'hup.yaml');
    writeFileSync(file, yaml({}));
    const svir = await start(file);
    expect(await listed(svir.url)).toEqual(['qwen3.8-27b@lms']);

    writeFileSync(file, yaml({ fast: 'lms/qwen3.8-27b' }));
    child?.kill('SIGHUP');
    await until(async () => (await listed(svir.url)).includes('fast@lms'), 'the alias after SIGHUP');
    // Log lines reach stdout asynchronously, a little after the event (create-log-destination.ts).
    await until(() => svir.output().includes('config reloaded'), 'the reload line');
    expect((await post(svir.url, chatBody('fast'))).status).toBe(200);

    writeFileSync(file, yaml({}).replace(`url: ${a.baseUrl}`, 'url: ftp://nowhere'));
    child?.kill('SIGHUP');
    await until(() => svir.output().includes('config reload refused'), 'the refusal line');
    expect(svir.output()).toMatch(/config reload refused, the running config stays: .*backends\.0\.url/);
    expect(await listed(svir.url)).toEqual(['fast@lms', 'qwen3.8-27b@lms']);
    expect((await post(svir.url, chatBody('fast'))).status).toBe(200);
  });

  it('reloads when the file changes with server.watchConfig', async () => {
    const file = join(dir, 'watch.yaml');
    writeFileSync(file, yaml({}, '  watchConfig: true'));
    const svir = await start(file);
    expect(await listed(svir.url)).toEqual(['qwen3.8-27b@lms']);
    writeFileSync(file, yaml({ big: 'qwen3.8-27b' }, '  watchConfig: true'));
    await until(async () => (await listed(svir.url)).includes('big@lms'), 'the alias after the file changed');
  });
});
