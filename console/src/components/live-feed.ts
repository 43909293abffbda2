/**
 * Follows the live event feed (`GET /api/v1/events/live`, docs/live-feed.md) with fetch() and a
 * ReadableStream: the token goes in the Authorization header, never in the URL, which EventSource could
 * not do. After a disconnect it connects again with `Last-Event-ID` (the last id received, the feed's
 * start position included), so no event is missed or repeated, waiting longer after each failure.
 */
import { sseParser, type SseMessage } from './sse-parser';

export type FeedStatus =
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'reconnecting'; inMs: number }
  | { state: 'stopped'; reason: string };

export type LiveFeedOptions = {
  /** The feed's address, with its filters (`types`, `streams`), never a token. */
  url: string;
  headers: () => Record<string, string>;
  onMessage: (message: SseMessage) => void;
  onStatus?: (status: FeedStatus) => void;
  /** Ends the feed. */
  signal: AbortSignal;
  fetch?: typeof fetch;
  /** The first wait before connecting again; doubled after each failure, up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
};

/** Refusals that connecting again would not change (a bad filter, a token refused or lacking the scope). */
const isFinal = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function refusal(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON
  }
  return `The service answered ${response.status}`;
}

/** Runs until `signal` aborts or the service refuses the feed; resolves then. */
export async function followLiveFeed(options: LiveFeedOptions): Promise<void> {
  const { signal, onMessage } = options;
  const status = options.onStatus ?? (() => {});
  const fetchFeed = options.fetch ?? fetch;
  const firstWait = options.retryMs ?? 1000;
  const maxWait = options.maxRetryMs ?? 30_000;
  let lastEventId = '';
  let delay = firstWait;
  status({ state: 'connecting' });
  while (!signal.aborted) {
    // A new parser per connection: a message cut off by the disconnect is dropped, the last id kept.
    const parser = sseParser(onMessage, lastEventId);
    try {
      const response = await fetchFeed(options.url, {
        headers: {
          ...options.headers(),
          accept: 'text/event-stream',
          ...(lastEventId && { 'last-event-id': lastEventId }),
        },
        cache: 'no-store',
        signal,
      });
      if (!response.ok || !response.body) {
        if (isFinal(response.status)) return status({ state: 'stopped', reason: await refusal(response) });
        throw new Error(`The service answered ${response.status}`);
      }
      status({ state: 'open' });
      delay = firstWait;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value);
        lastEventId = parser.lastEventId();
      }
    } catch {
      // A network failure or the service going away: connect again below, unless the page closed the feed.
    }
    lastEventId = parser.lastEventId();
    if (signal.aborted) break;
    const inMs = Math.min(parser.retryMs() ?? delay, maxWait);
    status({ state: 'reconnecting', inMs });
    await wait(inMs, signal);
    delay = Math.min(delay * 2, maxWait);
  }
  status({ state: 'stopped', reason: 'closed' });
}
