import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { portkeyArgs, portkeyChatRoute, portkeyEnv, portkeyHeaders, portkeyPackage, PORTKEY_READY_PATH } from '../../bench/portkey.js';
import { CHAT_ROUTE } from '../../bench/routes.js';
import { spawnTarget, type TargetProcess } from '../../bench/target-process.js';
import { FIRST_EVENT, postThroughGate, REST, startGatedUpstream } from './gated-upstream.js';

/**
 * Portkey's gateway as the bench runs it: the headers that send a chat request to an
 * OpenAI-compatible server on loopback, an environment that carries nothing of the user's, and
 * (through the harness, loopback-only.mjs preloaded) a whole answer streamed as it comes, with
 * no attempt to leave loopback.
 */

describe('bench Portkey settings', () => {
  it('routes to the mock as the openai provider with a custom host under /v1', () => {
    expect(portkeyHeaders('http://127.0.0.1:4321')).toEqual({
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': 'http://127.0.0.1:4321/v1',
      authorization: 'Bearer bench-key',
    });
    expect(portkeyHeaders('http://127.0.0.1:4321/')['x-portkey-custom-host']).toBe('http://127.0.0.1:4321/v1');
  });

  it('sends the chat route of every other target, with those headers', () => {
    const route = portkeyChatRoute('http://127.0.0.1:4321');
    expect(route.path).toBe(CHAT_ROUTE.path);
    expect(route.body).toBe(CHAT_ROUTE.body);
    expect(route.complete).toBe(CHAT_ROUTE.complete);
    expect(route.headers).toEqual(portkeyHeaders('http://127.0.0.1:4321'));
    expect(CHAT_ROUTE.headers).toBeUndefined();
  });

  it('runs the pinned gateway bin, headless, on the port asked, with PATH alone', () => {
    const pkg = portkeyPackage();
    expect(pkg.version).toBe('1.15.2');
    expect(pkg.entry.endsWith('build/start-server.js')).toBe(true);
    expect(existsSync(pkg.entry)).toBe(true);
    expect(portkeyArgs(4321)).toEqual(['--port=4321', '--headless']);
    expect(portkeyEnv({ PATH: '/usr/bin', HTTPS_PROXY: 'http://proxy:3128', REDIS_CONNECTION_STRING: 'redis://x', OPENAI_API_KEY: 'k' })).toEqual({ PATH: '/usr/bin' });
    expect(PORTKEY_READY_PATH).toBe('/');
  });
});

describe('bench Portkey through the harness', () => {
  const started: TargetProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all([...started.splice(0).map((t) => t.stop()), ...closers.splice(0).map((f) => f())]);
  });

  it('streams a whole answer as the upstream sends it, and never tries to leave loopback', async () => {
    const gate = await startGatedUpstream();
    closers.push(
      () =>
        new Promise((resolve) => {
          gate.server.closeAllConnections();
          gate.server.close(() => resolve());
        }),
    );
    const portkey = await spawnTarget('portkey', { kind: 'portkey' }, { maxLifetimeMs: 60_000 });
    started.push(portkey);
    const route = portkeyChatRoute(gate.origin);
    const answer = await postThroughGate(`http://127.0.0.1:${portkey.port}${route.path}`, route.body, route.headers ?? {}, gate);
    expect(answer.status).toBe(200);
    expect(answer.beforeRelease).toBe(FIRST_EVENT);
    expect(answer.whole).toBe(FIRST_EVENT + REST);
    expect(route.complete(answer.whole)).toBe(true);
    expect(gate.received).toHaveLength(1);
    expect(gate.received[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(gate.received[0]?.headers.authorization).toBe('Bearer bench-key');
    expect(portkey.networkRefusals()).toBe(0);
  });
});
