/**
 * Reads a successful upstream JSON answer (embeddings) whole, bounded in size: past the limit
 * the answer is refused (502), never cut, since half a vector list is no answer. A transport
 * failure while reading is mapped like a cut stream; the abort reason (client gone, a deadline)
 * is rethrown as it is.
 */
import type { Dispatcher } from 'undici';
import { SvirError } from '../errors.js';
import { discardBody } from './discard-body.js';
import { mapTransportError } from './map-transport-error.js';

export async function readJsonBody(
  body: Dispatcher.ResponseData['body'],
  options: { maxBytes: number; backend: string; signal: AbortSignal },
): Promise<unknown> {
  const { backend } = options;
  const pieces: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const bytes: Uint8Array = chunk;
      size += bytes.byteLength;
      if (size > options.maxBytes) {
        discardBody(body);
        throw new SvirError('upstream_error', {
          source: 'upstream',
          backend,
          message: `backend "${backend}" sent an answer larger than ${options.maxBytes / 1024 / 1024} MiB.`,
        });
      }
      pieces.push(bytes);
    }
  } catch (err) {
    if (options.signal.aborted) throw options.signal.reason;
    if (err instanceof SvirError) throw err;
    throw mapTransportError(err, backend, 'stream');
  }
  try {
    return JSON.parse(Buffer.concat(pieces, size).toString('utf8'));
  } catch {
    throw new SvirError('upstream_error', { source: 'upstream', backend, message: `backend "${backend}" sent an answer that is not JSON.` });
  }
}
