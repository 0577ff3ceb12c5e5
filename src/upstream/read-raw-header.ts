/**
 * One header from undici's raw response headers (name, value, name, value, ... as Buffers),
 * read as undici's own parsing would have it (names compared in lower case, values as latin1, a
 * repeated header an array), without building an object of every header: svir reads at most
 * two of a response's headers.
 */
export function readRawHeader(raw: readonly Buffer[], name: string): string | string[] | undefined {
  let found: string | string[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i];
    if (key === undefined || key.length !== name.length || key.toString('latin1').toLowerCase() !== name) continue;
    const value = raw[i + 1]?.toString('latin1') ?? '';
    if (found === undefined) found = value;
    else if (typeof found === 'string') found = [found, value];
    else found.push(value);
  }
  return found;
}
