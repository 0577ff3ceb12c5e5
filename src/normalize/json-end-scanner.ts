/**
 * Follows streamed JSON text as it grows and tells when it holds one whole object or array.
 * Each character is looked at once (strings, escapes and nesting are tracked), and JSON.parse
 * runs once, when the top-level value closes. Parsing the whole text again at every piece that
 * ended in `}` let a server streaming `}` inside a long string make svir do work in the square
 * of the text's length. Pure.
 */
export type JsonEndState = 'open' | 'complete' | 'broken';

export interface JsonEndScanner {
  /** `text` is everything so far: what was scanned before is a prefix of it. */
  advance(text: string): JsonEndState;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS: ReadonlySet<number> = new Set([0x7b /* { */, 0x5b /* [ */]);
const CLOSERS: ReadonlySet<number> = new Set([0x7d /* } */, 0x5d /* ] */]);
const SPACES: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

export function createJsonEndScanner(): JsonEndScanner {
  let scanned = 0;
  let depth = 0;
  let opened = false;
  let inString = false;
  let escaped = false;
  let state: JsonEndState = 'open';

  return {
    advance(text) {
      for (let i = scanned; i < text.length && state !== 'broken'; i++) {
        const code = text.charCodeAt(i);
        if (state === 'complete') {
          // Only whitespace may follow the one value.
          if (!SPACES.has(code)) state = 'broken';
        } else if (inString) {
          if (escaped) escaped = false;
          else if (code === BACKSLASH) escaped = true;
          else if (code === QUOTE) inString = false;
        } else if (!opened) {
          if (OPENERS.has(code)) {
            opened = true;
            depth = 1;
          } else if (!SPACES.has(code)) {
            state = 'broken';
          }
        } else if (code === QUOTE) {
          inString = true;
        } else if (OPENERS.has(code)) {
          depth += 1;
        } else if (CLOSERS.has(code)) {
          depth -= 1;
          if (depth === 0) {
            // Balanced: whether it is JSON (valid tokens, matching brackets) is asked once.
            try {
              JSON.parse(text.slice(0, i + 1));
              state = 'complete';
            } catch {
              state = 'broken';
            }
          }
        }
      }
      scanned = text.length;
      return state;
    },
  };
}
