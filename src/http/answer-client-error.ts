/**
 * Fastify's clientErrorHandler: a request Node's HTTP parser refused (a bare CR or a NUL in a
 * header, a folded header line, headers too large, a request that never finished arriving) is
 * answered in the one error shape too, instead of Fastify's own `{"error":"Bad Request",...}`.
 * The connection is then closed: after a parse error nothing more on it can be trusted.
 */
import type { Socket } from 'node:net';
import { SvirError } from '../errors.js';

function answerFor(code: string): { statusLine: string; error: SvirError } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { statusLine: '408 Request Timeout', error: new SvirError('invalid_request', { message: 'The request took too long to arrive.' }) };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      statusLine: '431 Request Header Fields Too Large',
      error: new SvirError('request_too_large', { message: 'The request headers are too large.' }),
    };
  }
  return { statusLine: '400 Bad Request', error: new SvirError('invalid_request', { message: 'The request is not valid HTTP.' }) };
}

export function answerClientError(err: Error & { code?: unknown }, socket: Socket): void {
  const code = typeof err.code === 'string' ? err.code : '';
  if (code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { statusLine, error } = answerFor(code);
    const body = JSON.stringify(error.toBody());
    socket.write(
      `HTTP/1.1 ${statusLine}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nx-svir-error-source: proxy\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
