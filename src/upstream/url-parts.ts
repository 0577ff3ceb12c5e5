/**
 * A call URL split the way undici's dispatch takes it: the origin, and the path with its query.
 *
 * The parsed URLs are kept in one map for the whole process, the only state here shared by
 * streams, and it may be: a URL string always splits into the same two strings, so a stream
 * gets the same answer with or without the map, and what one stream put in it tells another
 * nothing it would not compute itself (nothing of a request but its URL is in it, and that URL
 * is a backend's configured base plus a route). A backend has a handful of URLs, and parsing
 * one costs more than the lookup; past URL_PARTS_LIMIT entries (many backends, or URLs that
 * vary) the map starts over, so it stays small.
 */

export interface UrlParts {
  readonly origin: string;
  readonly path: string;
}

const urlParts = new Map<string, UrlParts>();
const URL_PARTS_LIMIT = 256;

export function urlPartsOf(url: string): UrlParts {
  let parts = urlParts.get(url);
  if (parts === undefined) {
    const parsed = new URL(url);
    parts = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (urlParts.size >= URL_PARTS_LIMIT) urlParts.clear();
    urlParts.set(url, parts);
  }
  return parts;
}
