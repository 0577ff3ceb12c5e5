/** Plain HTTP to svir, as a client without an SDK sends it: the raw status, headers and text. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The text as JSON, when it is JSON. */
  json: unknown;
}

export async function send(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** `POST {base}/v1/chat/completions`. */
export function chat(svirUrl: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<RawAnswer> {
  return send(`${svirUrl}/v1/chat/completions`, { body, headers });
}
