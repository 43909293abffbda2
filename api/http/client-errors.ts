/**
 * Requests Node refuses before Express sees them (a header section over Node's limit, a request line
 * that is not HTTP) are answered in the envelope of spec 7.1 too, instead of Node's bare status line
 * with an empty body.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { NOSNIFF } from './security-headers';

const REQUEST_TIMEOUT = {
  status: 408,
  reason: 'Request Timeout',
  error: 'RequestTimeout',
  message: 'Request timed out',
};

const ANSWERS: Record<string, { status: number; reason: string; error: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    error: 'RequestHeaderFieldsTooLarge',
    message: 'Request headers too large',
  },
  HPE_REQUEST_TIMEOUT: REQUEST_TIMEOUT,
  // The whole request (its body too) did not arrive within REQUEST_TIMEOUT_MS.
  ERR_HTTP_REQUEST_TIMEOUT: REQUEST_TIMEOUT,
};
const BAD_REQUEST = { status: 400, reason: 'Bad Request', error: 'BadRequest', message: 'Malformed HTTP request' };

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client reset, or one already answered, is only closed.
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const answer = ANSWERS[error.code ?? ''] ?? BAD_REQUEST;
    const body = JSON.stringify({ success: false, error: answer.error, message: answer.message });
    socket.end(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: ${NOSNIFF}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
