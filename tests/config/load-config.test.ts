import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/default-config.js';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load-config.js';

function problemsOf(text: string, env: Record<string, string> = {}): readonly string[] {
  try {
    parseConfig(text, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const MINIMAL = 'backends:\n  - name: a\n    type: openai\n    url: http://127.0.0.1:9/v1\n';

describe('parseConfig', () => {
  it('fills every default from a minimal file', () => {
    const config = parseConfig(MINIMAL, {});
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 4000, apiKeys: [], shutdownGraceMs: 10_000 });
    expect(config.reasoning.field).toBe('reasoning_content');
    expect(config.backends[0]).toMatchObject({ name: 'a', type: 'openai' });
    // Unset: the type's default decides (reasoningTagsOf).
    expect(config.backends[0]?.reasoningTags).toBeUndefined();
  });

  it('reads JSON, which is YAML', () => {
    const config = parseConfig('{"server":{"port":4100},"backends":[{"name":"j","type":"vllm","url":"http://h:8000"}]}', {});
    expect(config.server.port).toBe(4100);
    expect(config.backends[0]?.name).toBe('j');
  });

  it('interpolates ${NAME} from the environment, keeps quoted values as text, and $${NAME} literal', () => {
    const text = [
      'server:',
      '  port: ${PORT}',
      '  apiKeys: ["${K}", "pre-${K}-post", "$${K}"]',
      'backends:',
      '  - name: a',
      '    type: openai',
      '    url: http://${HOST}:9/v1',
      '    apiKey: "${NUMERIC}"',
    ].join('\n');
    const config = parseConfig(text, { PORT: '4321', K: 'secret', HOST: '127.0.0.2', NUMERIC: '12345' });
    expect(config.server.port).toBe(4321);
    expect(config.server.apiKeys).toEqual(['secret', 'pre-secret-post', '${K}']);
    expect(config.backends[0]?.url).toBe('http://127.0.0.2:9/v1');
    expect(config.backends[0]?.apiKey).toBe('12345');
  });

  it('reads a backend key that is set but empty as no key', () => {
    const text = `${MINIMAL}    apiKey: \${LMS_KEY}\n`;
    const config = parseConfig(text, { LMS_KEY: '' });
    expect(config.backends[0]?.apiKey).toBeUndefined();
    expect(parseConfig(text, { LMS_KEY: 'k-1' }).backends[0]?.apiKey).toBe('k-1');
  });

  it('names every missing variable with where it is used', () => {
    const text = `${MINIMAL}    apiKey: \${KEY_A}\nserver:\n  apiKeys: ["\${KEY_B}"]\n`;
    expect(problemsOf(text)).toEqual([
      'backends.0.apiKey: environment variable KEY_A is not set',
      'server.apiKeys.0: environment variable KEY_B is not set',
    ]);
  });

  it('does not read a variable value as YAML structure', () => {
    const config = parseConfig(`${MINIMAL}    apiKey: \${K}\n`, { K: 'a: [b, c]' });
    expect(config.backends[0]?.apiKey).toBe('a: [b, c]');
  });

  it('reports the path of every bad field at once', () => {
    const text = [
      'server:',
      '  port: 99999',
      '  colour: blue',
      'backends:',
      '  - name: good',
      '    type: openai',
      '    url: http://127.0.0.1:1/v1?x=1',
      '  - name: "bad name"',
      '    type: koboldcpp',
      '    url: http://user:pw@127.0.0.1:2',
      '  - name: frag',
      '    type: vllm',
      '    url: http://127.0.0.1:3/#top',
      '    reasoningTags: sometimes',
    ].join('\n');
    const problems = problemsOf(text);
    expect(problems).toContain('backends.0.url: must not carry a query');
    expect(problems).toContain('backends.1.url: must not carry userinfo (put the key in apiKey)');
    expect(problems).toContain('backends.2.url: must not carry a fragment');
    expect(problems).toContain('server.colour: unknown key');
    const paths = problems.map((p) => p.slice(0, p.indexOf(':')));
    expect(paths).toEqual(
      expect.arrayContaining(['server.port', 'backends.1.name', 'backends.1.type', 'backends.2.reasoningTags']),
    );
    expect(problems).toHaveLength(8);
  });

  it('refuses a file without backends and a config that is not a map', () => {
    expect(problemsOf('server: {port: 4000}\n')).toEqual([expect.stringMatching(/^backends: /)]);
    expect(problemsOf('')).toEqual([expect.stringMatching(/^backends: /)]);
    expect(problemsOf('- 1\n- 2\n')).toEqual([expect.stringMatching(/^\(root\): /)]);
  });

  it('refuses invalid YAML with where it broke', () => {
    const problems = problemsOf('backends: [\n  {name: a\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^not valid YAML: .*line \d+/s);
  });

  it('refuses duplicate backend names and azure without models', () => {
    const text = [
      'backends:',
      '  - {name: a, type: openai, url: "http://127.0.0.1:1"}',
      '  - {name: a, type: openai, url: "http://127.0.0.1:2"}',
      '  - {name: az, type: azure, url: "https://r.openai.azure.com/openai/v1"}',
    ].join('\n');
    expect(problemsOf(text)).toEqual([
      'backends.1.name: duplicate backend name "a"',
      'backends.2.models: required for azure (deployment names)',
    ]);
  });

  it('puts every problem in the error message', () => {
    try {
      parseConfig('backends:\n  - {name: a, type: openai, url: "http://h?x"}\n', {}, 'my.yaml');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err)).toContain('my.yaml');
      expect(String(err)).toContain('backends.0.url: must not carry a query');
    }
  });
});

describe('loadConfig and the shipped files', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svir-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a file, and names an unreadable one', async () => {
    const file = join(dir, 'svir.yaml');
    await writeFile(file, MINIMAL);
    expect((await loadConfig(file, {})).backends[0]?.name).toBe('a');
    await expect(loadConfig(join(dir, 'missing.yaml'), {})).rejects.toThrow(/missing\.yaml[\s\S]*cannot read the file/);
  });

  it('config/default.yaml is the built-in default config', async () => {
    const text = await readFile(new URL('../../config/default.yaml', import.meta.url), 'utf8');
    expect(parseConfig(text, {})).toEqual(defaultConfig());
    expect(defaultConfig().backends.map((b) => [b.name, b.type, new URL(b.url).port])).toEqual([
      ['lmstudio', 'lmstudio', '1234'],
      ['llamacpp', 'llamacpp', '8080'],
      ['vllm', 'vllm', '8000'],
      ['ollama', 'ollama', '11434'],
    ]);
  });

  it('config/example.yaml is valid and sets every key of the schema', async () => {
    const text = await readFile(new URL('../../config/example.yaml', import.meta.url), 'utf8');
    const config = parseConfig(text, { LMS_KEY: 'lms-key', AZURE_OPENAI_KEY: 'azure-key' });
    expect(config.backends.map((b) => b.type)).toEqual(['lmstudio', 'azure', 'ollama']);
    for (const key of ['host', 'port', 'apiKeys', 'allowUnauthenticated', 'bodyLimitBytes', 'shutdownGraceMs', 'keepaliveMs', 'logLevel']) {
      expect(text).toMatch(new RegExp(`^\\s+${key}:`, 'm'));
    }
    for (const key of ['name', 'type', 'url', 'apiKey', 'models', 'reasoningTags', 'vision', 'effortTemplateKey', 'contextLength', 'maxConcurrent', 'maxQueue', 'queueTimeoutMs', 'timeouts', 'connectMs', 'firstTokenMs', 'idleMs', 'apiVersion', 'aliases', 'modelRefreshMs', 'field']) {
      expect(text, key).toMatch(new RegExp(`^[\\s#-]*${key}:`, 'm'));
    }
  });
});
