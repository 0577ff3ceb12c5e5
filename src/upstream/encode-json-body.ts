/**
 * The request body as the text `JSON.stringify` would write, in parts, with its exact UTF-8
 * length. A request with images is tens of megabytes of base64 (docs/wire-protocol.md#size):
 * writing it out as one string and then one Buffer holds the body twice more for the whole request.
 * Long strings that JSON writes unchanged (no `"`, `\`, control character or surrogate) are instead
 * handed on as they are, between quotes, and sent in slices; everything else is written by
 * `JSON.stringify` itself, so the text is the same byte for byte. The length is known before
 * the first byte goes, so the body is sent with `Content-Length`, never chunked
 * (docs/wire-protocol.md#size: not every server takes a chunked body).
 */

/** Strings at least this long are candidates for passing on unwritten. */
export const LONG_STRING_LENGTH = 64 * 1024;
/** Below this many characters of long strings, one `JSON.stringify` costs less than the walk. */
export const SLICED_BODY_MIN = 1024 * 1024;

export interface EncodedJsonBody {
  /**
   * Joined, the parts are exactly `JSON.stringify(value)`. Parts at odd indices are long strings
   * passed on as they are (no surrogate in them); the others are text JSON.stringify wrote.
   */
  readonly parts: readonly string[];
  /** The UTF-8 length of the joined parts. */
  readonly byteLength: number;
}

/** Characters JSON escapes (`"`, `\`, controls) and surrogates (a lone one is escaped; a pair must not be cut). */
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

function isPlainContainer(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && proto !== Array.prototype) return false;
  // An own toJSON would change what is written; leave such a value to JSON.stringify whole.
  return typeof Reflect.get(value, 'toJSON') !== 'function';
}

/**
 * The total length of long strings in plain arrays and objects, or undefined when a value is
 * not plain data (a class instance, a toJSON) and only `JSON.stringify` knows how it is written.
 */
function longStringTotal(value: unknown): number | undefined {
  if (typeof value === 'string') return value.length >= LONG_STRING_LENGTH ? value.length : 0;
  if (typeof value !== 'object' || value === null) return 0;
  if (!isPlainContainer(value)) return undefined;
  // Walked on every request: index loops over the items and the own keys, and a short string
  // (nearly every value) is passed over without a call.
  let total = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string' && item.length < LONG_STRING_LENGTH) continue;
      const inner = longStringTotal(item);
      if (inner === undefined) return undefined;
      total += inner;
    }
    return total;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === undefined) continue;
    const item: unknown = Reflect.get(value, key);
    if (typeof item === 'string' && item.length < LONG_STRING_LENGTH) continue;
    const inner = longStringTotal(item);
    if (inner === undefined) return undefined;
    total += inner;
  }
  return total;
}

/** Collects the text: short pieces are joined into one glue string, long strings kept apart. */
class PartsBuilder {
  readonly parts: string[] = [];
  private glue = '';

  text(piece: string): void {
    this.glue += piece;
  }

  long(value: string): void {
    this.parts.push(this.glue + '"', value);
    this.glue = '"';
  }

  finish(): string[] {
    this.parts.push(this.glue);
    return this.parts;
  }
}

/** Whether JSON.stringify writes nothing for this value (an object key) or `null` (an array item). */
function isUnwritable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function write(value: unknown, out: PartsBuilder): void {
  if (typeof value === 'string') {
    if (value.length >= LONG_STRING_LENGTH && !NEEDS_CARE.test(value)) out.long(value);
    else out.text(JSON.stringify(value));
    return;
  }
  if (typeof value !== 'object' || value === null) {
    // Numbers, booleans, null (and a bigint, which throws as JSON.stringify would).
    out.text(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.text('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.text(',');
      const item: unknown = value[i];
      if (isUnwritable(item)) out.text('null');
      else write(item, out);
    }
    out.text(']');
    return;
  }
  out.text('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const item: unknown = Reflect.get(value, key);
    if (isUnwritable(item)) continue;
    out.text(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    write(item, out);
  }
  out.text('}');
}

export function encodeJsonBody(value: unknown): EncodedJsonBody {
  const total = longStringTotal(value);
  if (total === undefined || total < SLICED_BODY_MIN) {
    const text = JSON.stringify(value);
    return { parts: [text], byteLength: Buffer.byteLength(text, 'utf8') };
  }
  const out = new PartsBuilder();
  write(value, out);
  const parts = out.finish();
  let byteLength = 0;
  for (const part of parts) byteLength += Buffer.byteLength(part, 'utf8');
  return { parts, byteLength };
}

/** Pieces of at most this many characters: a slice of a long string is copied only when written. */
export const PIECE_LENGTH = 64 * 1024;

/**
 * The parts in pieces for a streamed request body. Only the long strings are cut, as they hold
 * no surrogate pair a cut could split; written text goes whole.
 */
export function* bodyPieces(body: EncodedJsonBody): Generator<string> {
  for (let i = 0; i < body.parts.length; i++) {
    const part = body.parts[i];
    if (part === undefined || part.length === 0) continue;
    if (i % 2 === 0 || part.length <= PIECE_LENGTH) {
      yield part;
      continue;
    }
    for (let at = 0; at < part.length; at += PIECE_LENGTH) yield part.slice(at, at + PIECE_LENGTH);
  }
}
