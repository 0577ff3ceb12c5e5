/**
 * The one body parser: only JSON is a request body here (anything else, text/plain included, is
 * 415). Bad JSON is the client's 400 `invalid_json` in the one error shape, with JSON.parse's
 * own words; a body nested deeper than MAX_JSON_DEPTH is refused before it is parsed; prototype
 * poisoning is refused.
 */
import type { FastifyInstance } from 'fastify';
import { SvirError } from '../errors.js';
import { exceedsJsonDepth } from './exceeds-json-depth.js';

/** Deeper bodies are refused: far beyond any real schema, far below what overflows JSON.stringify. */
const MAX_JSON_DEPTH = 1_000;

/** JSON.parse's own words (with the position) for a body the JSON parser refused. */
function syntaxErrorOf(body: string): string | undefined {
  try {
    JSON.parse(body);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : undefined;
  }
}

export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const body = typeof raw === 'string' ? raw : raw.toString('utf8');
    // A method that takes no body (DELETE, GET) may still say application/json, as the API
    // reference's own `curl -X DELETE` example does: nothing to parse is no body, not a 400.
    if (request.method !== 'POST' && body.trim().length === 0) {
      done(null, undefined);
      return;
    }
    if (exceedsJsonDepth(body, MAX_JSON_DEPTH)) {
      done(new SvirError('invalid_request', { message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` }), undefined);
      return;
    }
    parseJson(request, body, (err, value) => {
      if (err === null || err === undefined) {
        done(null, value);
        return;
      }
      const empty = body.trim().length === 0;
      const reason = syntaxErrorOf(body) ?? (err instanceof Error ? err.message : String(err));
      done(
        new SvirError('invalid_json', {
          message: empty ? 'The request body is empty.' : `The request body is not valid JSON: ${reason}`,
        }),
        undefined,
      );
    });
  });
}
