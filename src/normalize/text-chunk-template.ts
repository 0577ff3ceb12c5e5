/**
 * The common chunk of a stream, as a template: a server sends nearly every chunk of an answer as
 * the same bytes around one changing string, the delta's text
 * (`{"id":"x",...,"delta":{"content":` + `" quick"` + `},"finish_reason":null}]}`). Once one
 * chunk has been parsed and read, the text of the next one that has exactly those bytes around
 * one JSON string is that string, without a JSON.parse of the whole chunk (its largest cost).
 *
 * Sound by construction, not by likelihood: the bytes before and after the string are the same,
 * and the middle is checked to be exactly one JSON string token, so the new chunk tokenizes as
 * the old one with that one string token changed, and parses to the same object with that one
 * value changed. That the token is the delta's text (and not a key, or another field's value)
 * is checked when the template is made, by parsing the chunk with a sentinel in its place.
 */

/** What a template's chunk read as, apart from the text: the neutral parts besides it. */
export interface TextChunkTemplate<Kind extends string, Meta> {
  readonly prefix: string;
  readonly suffix: string;
  /** The kind of part the text is. */
  readonly kind: Kind;
  /** The chunk's identity part, the same in every chunk that fits (it lies in prefix or suffix). */
  readonly meta: Meta | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACES: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipSpaces(text: string, from: number): number {
  let i = from;
  while (i < text.length && SPACES.has(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the closing quote of the JSON string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/**
 * Where the string value of `"key":` lies in `data` (its first occurrence at a real quote), as
 * [start, end) of its JSON token; undefined when there is none. Which object it belongs to is
 * not known here: `makeTextTemplate` checks that.
 */
function valueSpan(data: string, key: string): [number, number] | undefined {
  const quoted = JSON.stringify(key);
  let at = data.indexOf(quoted);
  // A quote after a backslash is inside a string.
  while (at > 0 && data.charCodeAt(at - 1) === BACKSLASH) at = data.indexOf(quoted, at + 1);
  if (at === -1) return undefined;
  let i = skipSpaces(data, at + quoted.length);
  if (data.charCodeAt(i) !== 0x3a) return undefined;
  i = skipSpaces(data, i + 1);
  if (data.charCodeAt(i) !== QUOTE) return undefined;
  const end = stringEnd(data, i);
  return end === -1 ? undefined : [i, end];
}

/** A string no server sends as a token: the token the template's check puts in the text's place. */
const SENTINEL = 'svir\u0001template\u0002probe';
const SENTINEL_TOKEN = JSON.stringify(SENTINEL);

/**
 * A template from a chunk (`data`, already read) whose delta carried `text` under `key` as its
 * only payload. `textOf` reads a chunk the full way and returns the text under `key` when the
 * chunk reads as that same kind of chunk (identity, that one text, nothing else), else
 * undefined; it is asked about the chunk with a sentinel in place of the text.
 */
export function makeTextTemplate<Kind extends string, Meta>(
  data: string,
  key: string,
  text: string,
  kind: Kind,
  meta: Meta | undefined,
  textOf: (data: string) => string | undefined,
): TextChunkTemplate<Kind, Meta> | undefined {
  // The sentinel must be told apart from the text it stands in for.
  if (text === SENTINEL) return undefined;
  const span = valueSpan(data, key);
  if (span === undefined) return undefined;
  const prefix = data.slice(0, span[0]);
  const suffix = data.slice(span[1]);
  if (textOf(prefix + SENTINEL_TOKEN + suffix) !== SENTINEL) return undefined;
  return { prefix, suffix, kind, meta };
}

/**
 * The text of a chunk that fits the template, or undefined when it does not (then it is read
 * the full way). An empty string is a text too (the chunk carries nothing then).
 */
export function fillTextTemplate(template: TextChunkTemplate<string, unknown>, data: string): string | undefined {
  const { prefix, suffix } = template;
  const start = prefix.length;
  const end = data.length - suffix.length;
  // Compared as slices: V8 compares two strings' contents at memory speed, where
  // startsWith falls back to a loop per character once optimized (some 700 ns here).
  if (end - start < 2 || data.slice(0, start) !== prefix || data.slice(end) !== suffix) return undefined;
  if (data.charCodeAt(start) !== QUOTE || data.charCodeAt(end - 1) !== QUOTE) return undefined;
  // Exactly one string token: no quote inside but an escaped one, no raw control character.
  let escapes = false;
  for (let i = start + 1; i < end - 1; i++) {
    const c = data.charCodeAt(i);
    if (c === QUOTE || c < 0x20) return undefined;
    if (c === BACKSLASH) {
      escapes = true;
      i++;
    }
  }
  if (!escapes) return data.slice(start + 1, end - 1);
  // Escapes are JSON's to read (and to refuse: a bad one, or a closing quote escaped).
  try {
    const value: unknown = JSON.parse(data.slice(start, end));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
