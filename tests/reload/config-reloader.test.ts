import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../src/config/schema.js';
import { createConfigReloader } from '../../src/reload/create-config-reloader.js';

function config(names: string[]): Config {
  return configSchema.parse({ backends: names.map((name) => ({ name, type: 'openai', url: 'http://127.0.0.1:9/v1' })) });
}

function recordingLog() {
  const lines: string[] = [];
  return { lines, log: { info: (m: string) => lines.push(`info ${m}`), error: (m: string) => lines.push(`error ${m}`) } };
}

describe('createConfigReloader', () => {
  it('applies a good config and logs it', async () => {
    const applied: Config[] = [];
    const { lines, log } = recordingLog();
    const reloader = createConfigReloader({ load: () => Promise.resolve(config(['a', 'b'])), apply: (c) => void applied.push(c), log });
    const outcome = await reloader.reload();
    expect(outcome.ok).toBe(true);
    expect(applied.map((c) => c.backends.map((b) => b.name))).toEqual([['a', 'b']]);
    expect(lines).toEqual(['info config reloaded: 2 backend(s): a, b']);
  });

  it('refuses a bad config with one log line and applies nothing', async () => {
    const applied: Config[] = [];
    const { lines, log } = recordingLog();
    const reloader = createConfigReloader({
      load: () => Promise.reject(new Error('backends.0.url: must use http or https')),
      apply: (c) => void applied.push(c),
      log,
    });
    expect(await reloader.reload()).toEqual({ ok: false, error: 'backends.0.url: must use http or https' });
    expect(applied).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error config reload refused, the running config stays: backends\.0\.url/);
  });

  it('never runs two reloads at once, and runs once more for requests made meanwhile', async () => {
    let loads = 0;
    let active = 0;
    let overlapped = false;
    const { log } = recordingLog();
    const reloader = createConfigReloader({
      async load() {
        loads += 1;
        active += 1;
        if (active > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, 5));
        active -= 1;
        return config([`v${loads}`]);
      },
      apply: () => undefined,
      log,
    });
    const results = await Promise.all([reloader.reload(), reloader.reload(), reloader.reload()]);
    expect(overlapped).toBe(false);
    expect(loads).toBe(2);
    expect(results.map((r) => (r.ok ? r.config.backends[0]?.name : r.error))).toEqual(['v1', 'v2', 'v2']);
  });

  describe('watchFile', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('reloads after the file changes', async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'svir-reload-'));
      const file = path.join(dir, 'svir.yaml');
      writeFileSync(file, 'first');
      const { log } = recordingLog();
      let reloaded!: () => void;
      const done = new Promise<void>((resolve) => {
        reloaded = resolve;
      });
      const reloader = createConfigReloader({ load: () => Promise.resolve(config(['a'])), apply: () => reloaded(), log });
      const stop = reloader.watchFile(file, 20);
      writeFileSync(path.join(dir, 'unrelated.txt'), 'x');
      writeFileSync(file, 'second');
      await done;
      stop();
    });
  });
});
