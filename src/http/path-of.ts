/** A request URL without its query string, for the auth hook, the 404 answer and the log line. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
