/**
 * Closes an upstream body svir will not read (any further). undici reports a body destroyed
 * before its end as an abort error, which nobody may be waiting for: without a listener it
 * would be an uncaught exception.
 */
import type { Dispatcher } from 'undici';

export function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}
