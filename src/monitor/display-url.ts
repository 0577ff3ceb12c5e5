/**
 * A backend's URL as the live page shows it: scheme, host, port and path only. A user name and
 * password written into the URL, a query string (where some servers take a key) and a fragment
 * are left out, so nothing secret written into a base URL reaches the page (SECURITY.md).
 */
export function displayUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return '(not a URL)';
  }
  return `${url.protocol}//${url.host}${url.pathname}`;
}
