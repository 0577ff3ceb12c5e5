/**
 * Reads a successful upstream JSON answer (embeddings) whole, bounded in size: past the limit
 * the answer is refused (502), never cut, since half a vector list is no answer. A transport
 * failure while reading is mapped like a cut stream; the abort reason (client gone, a deadline)
 * is rethrown as it is.
 */
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { SvirError } from '../errors.js';
import { mapTransportError } from './map-transport-error.js';
import type { UpstreamBody } from './upstream-body.js';

export function readJsonBody(body: UpstreamBody, options: { maxBytes: number; backend: string; signal: AbortSignalLike }): Promise<unknown> {
  const { backend } = options;
  const pieces: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    body.read({
      data(bytes) {
        size += bytes.byteLength;
        if (size <= options.maxBytes) {
          pieces.push(bytes);
          return true;
        }
        body.discard();
        reject(
          new SvirError('upstream_error', {
            source: 'upstream',
            backend,
            message: `backend "${backend}" sent an answer larger than ${options.maxBytes / 1024 / 1024} MiB.`,
          }),
        );
        return false;
      },
      end() {
        try {
          resolve(JSON.parse(Buffer.concat(pieces, size).toString('utf8')));
        } catch {
          reject(new SvirError('upstream_error', { source: 'upstream', backend, message: `backend "${backend}" sent an answer that is not JSON.` }));
        }
      },
      error(err) {
        reject(options.signal.aborted ? options.signal.reason : mapTransportError(err, backend, 'stream'));
      },
    });
  });
}
