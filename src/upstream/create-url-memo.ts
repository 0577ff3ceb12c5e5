/**
 * A dispatcher's last URL, parsed (dispatch-request.ts): undici takes a request's origin and
 * path apart, and a backend's requests nearly all go to one URL (its chat endpoint), which a
 * `new URL` per call parsed again each time (about a microsecond). One entry per dispatcher
 * (create-upstream-pool.ts): nothing is shared between backends, and it holds no request's state.
 */
export interface UrlParts {
  origin: string;
  /** The path and the query. */
  path: string;
}

export type UrlMemo = (url: string) => UrlParts;

export function createUrlMemo(): UrlMemo {
  let lastUrl: string | undefined;
  let lastParts: UrlParts = { origin: '', path: '' };
  return (url) => {
    if (url === lastUrl) return lastParts;
    const parsed = new URL(url);
    lastParts = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    lastUrl = url;
    return lastParts;
  };
}
