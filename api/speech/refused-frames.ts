/**
 * A speech socket whose client sends a frame ws refuses (a message over the size limit, text that is
 * not UTF-8, reserved bits or opcodes, an unmasked frame) is closed by ws itself, which then emits
 * `error` on the socket: with no listener, that event would end the process. Here it ends only that
 * connection: the error is logged, the client is told why, and requests running on the socket stop
 * as on any close.
 */
import type { WebSocket } from 'ws';
import type { Logger } from '../../application/ports/logger';

/** The reason sent with each status code ws closes with when it refuses a frame (listed in /asyncapi.json too). */
export const REASONS: Readonly<Partial<Record<number, string>>> = {
  1002: 'protocol error',
  1007: 'invalid UTF-8',
  1008: 'message in too many fragments',
  1009: 'message too big',
};

export function closeOnRefusedFrames(ws: WebSocket, logger: Logger): void {
  // ws closes with the code alone, before it emits `error`: the close call is the only point where a
  // reason can still join the code. Every other close gives its own reason (the echo of the client's
  // close frame, a Buffer, included) or no code at all, and is left as it is.
  const close = ws.close.bind(ws);
  ws.close = (code?: number, reason?: string | Buffer) =>
    close(code, reason ?? (code === undefined ? undefined : REASONS[code]));
  ws.on('error', (error: Error & { code?: string }) =>
    logger.warn('speech socket closed: the client sent a frame that was refused', {
      code: error.code,
      error: error.message,
    }),
  );
}
