/**
 * Server-Sent Events over an Express response: the headers, one message per event (`id` its global
 * position, `event` its type, `data` one line of JSON) and comments that keep idle connections open
 * through proxies. `send` answers what `res.write` answers: false once the socket holds what it should.
 */
import type { Response } from 'express';
import type { FeedSink, LiveEvent } from '../../application/events/live-feed';

export function openEventStream(res: Response): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    // Proxies that buffer answers (nginx) pass these through as they come.
    'X-Accel-Buffering': 'no',
  });
  // Each message is one write, sent as soon as it is written.
  res.socket?.setNoDelay(true);
  res.flushHeaders();
}

/**
 * Messages written lately, by event view: one event's view is shared by every connection sending it
 * (application/events/live-feed.ts, `liveEventOf`), and a message goes when its view does.
 */
const messages = new WeakMap<LiveEvent, string>();

export function message(event: LiveEvent): string {
  let text = messages.get(event);
  if (text === undefined) {
    text = `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify({
      stream: event.stream,
      type: event.type,
      data: event.data,
      recorded_at: event.recorded_at,
      metadata: event.metadata,
    })}\n\n`;
    messages.set(event, text);
  }
  return text;
}

/** A message with an id and no data: the client's last id becomes `position` and no event is dispatched. */
export const positionOnly = (position: number): string => `id: ${position}\n\n`;

export const KEEP_ALIVE = ': keep-alive\n\n';

export const sinkOf = (res: Response): FeedSink => ({
  send: (event) => res.write(message(event)),
  drained: () => new Promise((resolve) => res.once('drain', resolve)),
});
