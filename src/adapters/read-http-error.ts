/**
 * The readError every adapter has: a non-2xx answer (status, raw body) read by the shared error
 * reader (normalize/map-upstream-error.ts), which knows every server's forms
 * (docs/wire-protocol.md#http-errors, docs/contract.md#errors).
 */
import { mapUpstreamError } from '../normalize/map-upstream-error.js';
import type { Adapter } from './adapter.js';

export const readHttpError: Adapter['readError'] = (status, body, ctx) => mapUpstreamError({ status, body, channel: 'http', ...ctx });
