/**
 * A legacy Completions request → the call for one backend: its `completions` route and auth
 * (the adapter's `endpoint`), the server's model id, and, like chat (docs/contract.md#shape),
 * always a stream with usage, whatever the client asked: `stream: false` is folded by svir.
 * Everything else passes as sent, but a list of one prompt goes as that string to a server that
 * reads only a string. A server with no `/v1/completions`, or a `suffix` (fill in the middle)
 * for one that would refuse or ignore it, is the client's 400 before anything is sent: a
 * completion of the prefix alone is not what the editor asked for.
 */
import type { CompletionRequest } from '../../requests/completion-request.js';
import { SvirError } from '../../errors.js';
import type { Adapter, BackendInfo, ToUpstreamResult } from '../adapter.js';
import { withFields } from './with-fields.js';

export function completionCall(adapter: Adapter, request: CompletionRequest, backend: BackendInfo, upstreamModel: string): ToUpstreamResult {
  const name = backend.config.name;
  const served = adapter.legacy.completions;
  if (served === null) {
    return {
      ok: false,
      error: new SvirError('invalid_request', {
        param: 'model',
        message: `Backend "${name}" (${backend.config.type}) has no /v1/completions; ask for this model on /v1/chat/completions.`,
      }),
    };
  }
  const body: Record<string, unknown> = withFields(request, {
    model: upstreamModel,
    stream: true,
    stream_options: withFields(request.stream_options ?? {}, { include_usage: true }),
  });
  const changes: string[] = [];
  if (!served.promptList && typeof request.prompt !== 'string') {
    const [only] = request.prompt;
    if (typeof only !== 'string') {
      return {
        ok: false,
        error: new SvirError('invalid_request', {
          param: 'prompt',
          message: `Backend "${name}" (${backend.config.type}) takes the prompt as text only, not as token ids.`,
        }),
      };
    }
    // The same one prompt, in the only form the server reads.
    body.prompt = only;
    changes.push('prompt list of one sent as a string');
  }
  if (!served.suffix && 'suffix' in request) {
    if (typeof request.suffix === 'string' && request.suffix.length > 0) {
      return {
        ok: false,
        error: new SvirError('invalid_request', {
          param: 'suffix',
          message: `Backend "${name}" (${backend.config.type}) cannot fill in the middle: its /v1/completions does not take \`suffix\`.`,
        }),
      };
    }
    // An empty suffix asks for nothing, and the server would refuse or ignore the field.
    delete body.suffix;
    changes.push('empty suffix dropped (the backend does not take suffix)');
  }
  const { url, headers } = adapter.endpoint('completions', backend, upstreamModel);
  // Not `{ ...endpoint, body, changes }`: new keys after a spread are V8's slow path on Node 20.
  return { ok: true, call: { url, headers, body, changes } };
}
