export interface DataUrl {
  mediaType: string;
  bytes: Uint8Array;
}

/** `data:<media type>[;params][;base64],<data>` → its media type and bytes; undefined if not one. */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = /^data:([^,]*),(.*)$/s.exec(url);
  if (!match) return undefined;
  const meta = (match[1] ?? '').split(';').map((piece) => piece.trim());
  const data = match[2] ?? '';
  const base64 = meta.slice(1).some((piece) => piece.toLowerCase() === 'base64');
  const mediaType = (meta[0] ?? '').toLowerCase() || 'text/plain';
  if (base64) return { mediaType, bytes: new Uint8Array(Buffer.from(data, 'base64')) };
  try {
    return { mediaType, bytes: new TextEncoder().encode(decodeURIComponent(data)) };
  } catch {
    return undefined;
  }
}
