/**
 * A request zod refused → 400 `invalid_request` that names the field (`param`) and says what is
 * wrong with each bad field, in the words a client developer can act on.
 */
import type { z } from 'zod';
import { SvirError } from '../errors.js';

function pathOf(path: readonly PropertyKey[]): string {
  return path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('').replace(/^\./, '');
}

/** At most this many problems are spelled out; a hostile body cannot make the message huge. */
const MAX_LISTED = 5;

export function invalidRequestError(error: z.ZodError): SvirError {
  const issues = error.issues;
  const first = issues[0];
  const param = first === undefined || first.path.length === 0 ? null : pathOf(first.path);
  const described = issues.slice(0, MAX_LISTED).map((issue) => {
    const where = issue.path.length === 0 ? 'the body' : pathOf(issue.path);
    return `${where}: ${issue.message}`;
  });
  const more = issues.length > MAX_LISTED ? ` (and ${issues.length - MAX_LISTED} more)` : '';
  return new SvirError('invalid_request', {
    param,
    message: `Invalid request: ${described.join('; ')}${more}.`,
  });
}
