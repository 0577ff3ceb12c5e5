/**
 * A short text for an upstream status, used as the message when the server's body said nothing
 * readable (no body, HTML, not JSON). Kept here rather than taken from node:http so that the
 * pure modules stay free of Node's I/O modules.
 */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** `HTTP 502 Bad Gateway`, or `HTTP 599` for a status without a known text; streams have none. */
export function httpStatusText(status: number): string {
  if (status === 0 || status === 200) return 'the stream reported an error without a message';
  const text = STATUS_TEXT[status];
  return text === undefined ? `HTTP ${status}` : `HTTP ${status} ${text}`;
}
