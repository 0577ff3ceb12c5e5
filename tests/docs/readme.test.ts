/**
 * The README is held to the code: its config reference lists exactly the keys of the zod schema
 * (src/config/schema.ts) with their types, enum values, defaults and required keys, so the two
 * cannot drift; every backend example is a config that loads; the set-up commands are the two
 * the CI runs; the base URL it gives clients is the default config's; its links resolve.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultConfig } from '../../src/config/default-config.js';
import { parseConfig } from '../../src/config/load-config.js';
import { BACKEND_TYPES, configSchema } from '../../src/config/schema.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

/** The few JSON-schema fields the walk reads. */
const jsonNode = z.looseObject({
  type: z.string().optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  required: z.array(z.string()).optional(),
  items: z.unknown().optional(),
  additionalProperties: z.unknown().optional(),
  enum: z.array(z.union([z.string(), z.number()])).optional(),
  default: z.unknown().optional(),
});
type JsonNode = z.infer<typeof jsonNode>;

interface SchemaKey {
  path: string;
  node: JsonNode;
  required: boolean;
}

function isPlainObject(node: JsonNode): boolean {
  return node.type === 'object' && node.properties !== undefined;
}

/** Every key path a user writes: objects are walked into, lists of objects too (`backends[].x`). */
function schemaKeys(raw: unknown, prefix = ''): SchemaKey[] {
  const node = jsonNode.parse(raw);
  const keys: SchemaKey[] = [];
  for (const [name, childRaw] of Object.entries(node.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const child = jsonNode.parse(childRaw);
    const required = node.required?.includes(name) === true && child.default === undefined;
    if (isPlainObject(child)) {
      keys.push(...schemaKeys(child, path));
      continue;
    }
    keys.push({ path, node: child, required });
    if (child.type === 'array' && child.items !== undefined && isPlainObject(jsonNode.parse(child.items))) {
      keys.push(...schemaKeys(child.items, `${path}[]`));
    }
  }
  return keys;
}

interface ReadmeRow {
  key: string;
  type: string;
  defaultCell: string;
  meaning: string;
}

function referenceRows(): ReadmeRow[] {
  const start = readme.indexOf('<!-- config-reference:start -->');
  const end = readme.indexOf('<!-- config-reference:end -->');
  expect(start, 'the README has no config reference markers').toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return readme
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      // `\|` inside a cell is an escaped bar (enum values), not a column break.
      const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
      const [key = '', type = '', defaultCell = '', meaning = ''] = cells;
      return { key: key.replace(/^`|`$/g, ''), type, defaultCell, meaning };
    });
}

/** How the README writes a type: enums by their values, the rest by name. */
function expectedTypeWord(node: JsonNode): string {
  if (node.type === 'array') {
    const items = jsonNode.parse(node.items ?? {});
    return isPlainObject(items) ? 'list of' : `list of ${items.type ?? ''}s`;
  }
  if (node.type === 'object') return 'map of';
  return node.type ?? '';
}

function formatDefault(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
const keys = schemaKeys(schema);

describe('README config reference', () => {
  it('lists every key of the schema, and no other', () => {
    const rows = referenceRows();
    expect(keys.length).toBeGreaterThan(20);
    expect(rows.map((row) => row.key).sort()).toEqual(keys.map((key) => key.path).sort());
    expect(new Set(rows.map((row) => row.key)).size).toBe(rows.length);
  });

  it('gives each key its type or enum values, its default or "required", and says what it does', () => {
    const rows = new Map(referenceRows().map((row) => [row.key, row]));
    for (const key of keys) {
      const row = rows.get(key.path);
      expect(row, key.path).toBeDefined();
      if (row === undefined) continue;
      if (key.node.enum !== undefined) {
        expect([...row.type.matchAll(/`([^`]+)`/g)].map((match) => match[1]), key.path).toEqual(key.node.enum.map(String));
      } else {
        expect(row.type.startsWith(expectedTypeWord(key.node)), `${key.path}: "${row.type}"`).toBe(true);
      }
      if (key.required) expect(row.defaultCell, key.path).toBe('required');
      else if (key.node.default === undefined) expect(row.defaultCell, key.path).toBe('-');
      else expect(row.defaultCell, key.path).toBe(formatDefault(key.node.default));
      expect(row.meaning.length, key.path).toBeGreaterThan(10);
    }
  });
});

describe('README examples', () => {
  function examples(): string[] {
    const start = readme.indexOf('### One example per backend type');
    const end = readme.indexOf('\n## ', start);
    expect(start).toBeGreaterThan(-1);
    return [...readme.slice(start, end).matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  }

  it('has one example per backend type, each a config svir loads', () => {
    const env = { AZURE_OPENAI_KEY: 'azure-key', OPENAI_API_KEY: 'openai-key', SVIR_KEY: 'svir-key' };
    const types = new Set<string>();
    for (const text of examples()) {
      const config = parseConfig(text, env, 'README example');
      for (const backend of config.backends) types.add(backend.type);
    }
    expect([...types].sort()).toEqual([...BACKEND_TYPES].sort());
  });

  it('keeps the set-up commands that the CI runs: the test command, then the real-server suite', () => {
    const setUp = readme.slice(readme.indexOf('## Set up'), readme.indexOf('\n## ', readme.indexOf('## Set up') + 1));
    expect(setUp).toContain('```sh\nnpm install && npm start\n```');
    expect(setUp).toContain('```sh\nnpm ci && npm test\n```');
    expect(setUp).toContain('```sh\nnpm run test:real\n```');
    const ci = readFileSync(`${root}.ci/run`, 'utf8');
    expect(ci).toContain('npm ci && npm test');
    expect(ci.indexOf('npm run test:real')).toBeGreaterThan(ci.indexOf('npm ci && npm test'));
  });

  it('gives clients the base URL of the default config', () => {
    const { host, port } = defaultConfig().server;
    expect(readme).toContain(`The base URL is \`http://${host}:${port}/v1\``);
  });

  it('links only to headings that exist', () => {
    const slugs = new Set(
      [...readme.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
        (match[1] ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9 _-]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const anchors = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1] ?? '');
    expect(anchors.length).toBeGreaterThan(0);
    for (const anchor of anchors) expect(slugs, anchor).toContain(anchor);
  });
});
