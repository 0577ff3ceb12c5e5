/**
 * Whether a Responses function tool is strict (docs/responses.md, "Function tools"). The
 * Responses API defaults `strict` to true, where Chat Completions defaults it to false: with no
 * `strict`, OpenAI makes the schema strict when it can and falls back to best-effort calling
 * when it cannot. svir does not rewrite a schema: a function without `strict` is strict when its
 * parameters already meet strict mode's rules, and best effort otherwise (a strict function
 * whose schema breaks the rules is a 400 at OpenAI and Azure). What the client said is kept.
 */

/** Deeper than any real tool schema: a schema this deep is not taken for a strict one. */
const MAX_DEPTH = 64;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Strict mode's rules (OpenAI's structured outputs): every object lists all of its properties
 * under `required` and sets `additionalProperties: false`, in every nested schema.
 */
function meetsStrictRules(schema: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (typeof schema === 'boolean') return true;
  if (!isRecord(schema)) return false;
  const properties = schema['properties'];
  if (schema['type'] === 'object' || properties !== undefined) {
    if (schema['additionalProperties'] !== false) return false;
    if (properties !== undefined && !isRecord(properties)) return false;
    const required = schema['required'];
    const listed = Array.isArray(required) ? new Set(required) : new Set();
    for (const [name, property] of Object.entries(properties ?? {})) {
      if (!listed.has(name) || !meetsStrictRules(property, depth + 1)) return false;
    }
  }
  const items = schema['items'];
  if (items !== undefined && !(Array.isArray(items) ? items.every((item) => meetsStrictRules(item, depth + 1)) : meetsStrictRules(items, depth + 1))) {
    return false;
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = schema[key];
    if (Array.isArray(list) && !list.every((entry) => meetsStrictRules(entry, depth + 1))) return false;
  }
  for (const key of ['$defs', 'definitions']) {
    const defs = schema[key];
    if (isRecord(defs) && !Object.values(defs).every((entry) => meetsStrictRules(entry, depth + 1))) return false;
  }
  return true;
}

/** The `strict` a function is sent and echoed with: the client's, else the Responses default. */
export function functionStrict(strict: boolean | null | undefined, parameters: unknown): boolean {
  if (typeof strict === 'boolean') return strict;
  return isRecord(parameters) && parameters['type'] === 'object' && meetsStrictRules(parameters, 0);
}
