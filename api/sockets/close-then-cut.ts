/**
 * Closes a WebSocket the service gives up on (idle, not authenticated in time): a client that does not
 * answer the close frame is cut after a short grace instead of ws's own 30 s, since what it holds (a
 * file descriptor, a place among the caps) is what the close is for.
 */
import type { WebSocket } from 'ws';

/** How long a client told to close has to answer its close frame. */
export const CLOSE_GRACE_MS = 2000;

export function closeThenCut(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState === ws.CLOSED) return;
  ws.close(code, reason);
  const cut = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  ws.once('close', () => clearTimeout(cut));
}
