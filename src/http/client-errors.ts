import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorStatus, type ErrorCode } from './error-registry.js';

/**
 * Errors Node's HTTP server raises before any request exists (a malformed head, oversized headers,
 * a request that outlived the request timeout). Node would answer them in its own words, so this
 * writes our {code, message} body with a request id that the log line carries too.
 */
export function respondToClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message] = describe(error.code);
  const requestId = randomUUID();
  this.log.info({ reqId: requestId, err: error, errorCode: code }, 'client error');
  // Node's own rule: answer only when no response on this socket has started its headers.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && (pending === undefined || pending === null || pending.headersSent !== true)) {
    const status = errorStatus[code];
    const body = JSON.stringify({ code, message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n`
      + 'Content-Type: application/json; charset=utf-8\r\n'
      + `Content-Length: ${Buffer.byteLength(body)}\r\n`
      + `x-request-id: ${requestId}\r\n`
      + 'Connection: close\r\n\r\n'
      + body,
    );
  }
  socket.destroy(error);
}

function describe(nodeCode: string | undefined): [ErrorCode, string] {
  switch (nodeCode) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['REQUEST_TIMEOUT', 'the request was not received in time'];
    case 'HPE_HEADER_OVERFLOW':
      return ['HEADERS_TOO_LARGE', 'the request headers are too large'];
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return ['BAD_REQUEST', 'the Content-Length header is not valid'];
    default:
      return ['BAD_REQUEST', 'the request is not valid HTTP/1.1'];
  }
}
