/**
 * People write a server's base URL with and without `/v1`, with and without a trailing slash
 * (docs/wire-protocol.md#endpoints). Every upstream path is resolved against the one form this
 * returns, `.../v1/`, so `models` and `chat/completions` never end up under `/v1/v1/`.
 */
export function normalizeBaseUrl(raw: string): string {
  const url = new URL(raw.trim());
  if (url.username !== '' || url.password !== '') throw new TypeError('a base URL must not carry userinfo');
  if (url.search !== '' || raw.includes('?')) throw new TypeError('a base URL must not carry a query');
  if (url.hash !== '' || raw.includes('#')) throw new TypeError('a base URL must not carry a fragment');
  // Collapse repeated and trailing slashes so `http://h:1//v1//` reads like `http://h:1/v1`.
  let path = url.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  // A base written as `.../v1/v1` is the `/v1/v1` mistake itself: keep one.
  while (/\/v1\/v1$/i.test(path)) path = path.slice(0, -3);
  if (!/\/v1$/i.test(path)) path = `${path}/v1`;
  url.pathname = `${path}/`;
  return url.toString();
}
