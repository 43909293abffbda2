/**
 * POSTs a webhook with `fetch`: the answer's status, or the network error or timeout that kept one
 * from arriving. The response body is read and dropped (at most what arrives before the timeout), so
 * the connection can be reused. An abort from the caller (the service stopping) ends the request.
 */
import type { WebhookPoster } from '../../application/ports/webhook-poster';

export function fetchPoster(timeoutMs: number): WebhookPoster {
  return async (url, headers, body, signal) => {
    const started = performance.now();
    const duration = () => Math.round(performance.now() - started);
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.any([signal, timeout]) });
      await response.arrayBuffer().catch(() => undefined);
      return { statusCode: response.status, error: response.status === 200 ? null : `Answered ${response.status}`, durationMs: duration() };
    } catch (error) {
      const reason = signal.aborted ? 'Interrupted: the service stopped' : timeout.aborted ? `No answer within ${timeoutMs} ms` : networkError(error);
      return { statusCode: null, error: reason, durationMs: duration() };
    }
  };
}

/** fetch hides the cause (connection refused, unknown host) behind "fetch failed". */
function networkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `Network error: ${detail}`;
}
