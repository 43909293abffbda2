/**
 * POSTs a webhook with `node:http`/`node:https`: the answer's status, or the network error, timeout or
 * refusal that kept one from arriving. Redirects are not followed (a 3xx is just an answer other than
 * 200). The response body is read and dropped (at most what arrives before the timeout), so the
 * keep-alive connection can be reused. An abort from the caller (the service stopping) ends the request.
 *
 * Unless private networks are allowed, the destination must be public (SSRF): a literal IP host is
 * checked here (net.connect does not look literals up), a name is checked by the `lookup` the socket
 * resolves it with (public-lookup.ts), so the address checked is the one connected to.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { PostOutcome, WebhookPoster } from '../../application/ports/webhook-poster';
import { isPrivateAddress, literalAddress } from './private-addresses';
import { publicOnlyLookup, RefusedDestination } from './public-lookup';

export type HttpPosterOptions = { timeoutMs: number; allowPrivateNetworks: boolean };

/** Idle pooled connections are closed before the common 5 s keep-alive of servers closes them under a request. */
const IDLE_MS = 4_000;
const INTERRUPTED = 'Interrupted: the service stopped';

export function httpPoster({ timeoutMs, allowPrivateNetworks }: HttpPosterOptions): WebhookPoster {
  const agents = {
    http: new HttpAgent({ keepAlive: true, timeout: IDLE_MS }),
    https: new HttpsAgent({ keepAlive: true, timeout: IDLE_MS }),
  };
  const lookup = allowPrivateNetworks ? undefined : publicOnlyLookup;

  return (url, headers, body, signal) =>
    new Promise<PostOutcome>((resolve) => {
      const started = performance.now();
      let statusCode: number | null = null;
      let settled = false;
      let request: ClientRequest | null = null;

      /** Answers once: the status when one arrived (whatever happens to the body), else `error`. */
      const settle = (error: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const durationMs = Math.round(performance.now() - started);
        if (statusCode !== null)
          resolve({ statusCode, error: statusCode === 200 ? null : `Answered ${statusCode}`, durationMs });
        else resolve({ statusCode: null, error, durationMs });
      };
      const end = (error: string) => {
        settle(error);
        request?.destroy();
      };
      const onAbort = () => end(INTERRUPTED);
      const timer = setTimeout(() => end(`No answer within ${timeoutMs} ms`), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });

      const target = destination(url, allowPrivateNetworks);
      if (signal.aborted) return end(INTERRUPTED);
      if (typeof target === 'string') return end(target);
      try {
        const https = target.protocol === 'https:';
        request = (https ? httpsRequest : httpRequest)(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            agent: https ? agents.https : agents.http,
            lookup,
          },
          (response) => {
            statusCode = response.statusCode ?? null;
            response.on('error', () => undefined); // a body cut short still leaves the status
            response.on('end', () => settle(''));
            response.on('close', () => settle(''));
            response.resume();
          },
        );
        request.on('error', (error) => settle(networkError(error)));
        request.on('close', () => settle('Network error: connection closed'));
        request.end(body);
      } catch (error) {
        end(networkError(error));
      }
    });
}

/** The URL to request, or why not: a literal private IP is refused here (net.connect looks only names up). */
function destination(url: string, allowPrivateNetworks: boolean): URL | string {
  let target: URL;
  try {
    target = new URL(url);
  } catch (error) {
    return networkError(error);
  }
  const literal = literalAddress(target.hostname);
  if (!allowPrivateNetworks && literal !== null && isPrivateAddress(literal))
    return new RefusedDestination(literal, literal).message;
  return target;
}

/** A refusal keeps its own text; otherwise the error's code (connection refused, unknown host), or its message. */
function networkError(error: unknown): string {
  if (error instanceof RefusedDestination) return error.message;
  const { code, message } = error as { code?: string; message?: string };
  return `Network error: ${code ?? message ?? String(error)}`;
}
