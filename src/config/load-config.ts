/**
 * Config file → Config: YAML (JSON is YAML too), then `${NAME}` from the environment, then the
 * zod schema. A bad file is refused whole, with one line per bad field naming its path, so a
 * user fixes everything in one go instead of one error per start.
 */
import { readFile } from 'node:fs/promises';
import { isPair, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { configSchema, type Config } from './schema.js';

/** The config could not be used; `problems` holds one line per bad field (`path: message`). */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(source: string, problems: readonly string[]) {
    super(`invalid config ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** `${NAME}` is a variable; `$${NAME}` is the literal text `${NAME}`. */
const VARIABLE = /\$(\$?)\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map((key) => String(key)).join('.');
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      // One line per key, with the key in the path, so the user sees exactly what to delete.
      for (const key of issue.keys) lines.push(`${formatPath([...issue.path, key])}: unknown key`);
      continue;
    }
    lines.push(`${formatPath(issue.path)}: ${issue.message}`);
  }
  return lines;
}

/** Replaces every `${NAME}` in one string; a missing variable is reported, not read as empty. */
function interpolate(text: string, env: Env, where: string, problems: string[]): string {
  return text.replace(VARIABLE, (whole, escaped: string, name: string) => {
    if (escaped === '$') return whole.slice(1);
    if (!VARIABLE_NAME.test(name)) {
      problems.push(`${where}: "\${${name}}" is not a valid variable name`);
      return '';
    }
    const value = env[name];
    if (value === undefined) {
      problems.push(`${where}: environment variable ${name} is not set`);
      return '';
    }
    return value;
  });
}

/**
 * A plain (unquoted) scalar that was only a variable reads as if its value had been written
 * there, so `port: ${PORT}` is a number; quoted, it stays a string, so `apiKey: "${KEY}"` is
 * always text. Only numbers and booleans are taken this way: a value never becomes a map.
 */
function retype(value: string): string | number | boolean {
  const doc = parseDocument(value);
  const contents = doc.contents;
  if (doc.errors.length === 0 && isScalar(contents)) {
    const parsed: unknown = contents.value;
    if (typeof parsed === 'number' || typeof parsed === 'boolean') return parsed;
  }
  return value;
}

/** Parses config text. Throws ConfigError listing every problem found. */
export function parseConfig(text: string, env: Env = process.env, source = '(text)'): Config {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // The first syntax error only: the ones after it are usually its echoes.
    const first = doc.errors[0];
    throw new ConfigError(source, [`not valid YAML: ${first ? first.message.trim() : 'unreadable'}`]);
  }

  const problems: string[] = [];
  visit(doc, {
    Scalar(key, node, path) {
      // Keys are names, not values: only values take variables.
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return undefined;
      const keys: string[] = [];
      path.forEach((ancestor, i) => {
        if (isPair(ancestor) && isScalar(ancestor.key)) keys.push(String(ancestor.key.value));
        else if (isSeq(ancestor)) keys.push(String(ancestor.items.indexOf(path[i + 1] ?? node)));
      });
      const where = keys.length > 0 ? keys.join('.') : '(root)';
      const original = node.value;
      const replaced = interpolate(original, env, where, problems);
      const wholeVariable = /^\$\{[^}]*\}$/.test(original);
      // Changed in place: a returned node would be visited again, reading `$${X}` twice.
      node.value = wholeVariable && node.type === 'PLAIN' ? retype(replaced) : replaced;
      return undefined;
    },
  });
  if (problems.length > 0) throw new ConfigError(source, problems);

  const data: unknown = doc.toJS() ?? {};
  const result = configSchema.safeParse(data);
  if (!result.success) throw new ConfigError(source, describeIssues(result.error.issues));
  return result.data;
}

/** Reads and parses a config file. */
export async function loadConfig(file: string, env: Env = process.env): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError(file, [`cannot read the file: ${reason}`]);
  }
  return parseConfig(text, env, file);
}
