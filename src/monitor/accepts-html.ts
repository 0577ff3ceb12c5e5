/**
 * Whether a request asks for a web page: browsers name text/html in Accept, API clients
 * (`application/json`, `*\/*`, none) do not. GET / answers the first with the live page and the
 * others as it always did (docs/live-page.md).
 */
export function acceptsHtml(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('text/html');
}
