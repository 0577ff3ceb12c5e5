/**
 * Whether JSON text nests arrays and objects deeper than `limit`. It scans the raw text before
 * it is parsed: JSON.parse takes a body nested a hundred thousand levels deep, but
 * JSON.stringify of it overflows the stack when svir sends it upstream (a 500 for any client
 * who tries). Strings are skipped with indexOf, so a body that is mostly a base64 image costs
 * one memchr-fast search per string.
 */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 /* " */) {
      // Jump to the closing quote: one preceded by an even number of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes += 1;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false;
      i = end;
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth -= 1;
    }
  }
  return false;
}
