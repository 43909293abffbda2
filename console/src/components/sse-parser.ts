/**
 * A Server-Sent Events parser (the `text/event-stream` format of the HTML standard), fed text as it
 * arrives. The console reads the live feed with fetch() rather than EventSource, which cannot send the
 * Authorization header, so it parses the stream itself: lines end with CRLF, LF or CR (a chunk may cut
 * between CR and LF), `:` starts a comment, a blank line dispatches, a message without data dispatches
 * nothing but still moves the last event id (the feed's first message is its start position).
 */

export type SseMessage = { id: string; event: string; data: string };

export type SseParser = {
  /** Feeds the next piece of decoded text. */
  push: (text: string) => void;
  /** The id of the last message (the `Last-Event-ID` to resume from); empty before any. */
  lastEventId: () => string;
  /** The reconnection delay the server asked for with `retry:`, if it did. */
  retryMs: () => number | undefined;
};

export function sseParser(onMessage: (message: SseMessage) => void, lastEventId = ''): SseParser {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id = lastEventId;
  let retry: number | undefined;

  const dispatch = () => {
    lastEventId = id;
    if (data.length > 0) onMessage({ id, event: event || 'message', data: data.join('\n') });
    data = [];
    event = '';
  };

  const field = (line: string) => {
    if (line === '') return dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') data.push(value);
    else if (name === 'event') event = value;
    else if (name === 'id' && !value.includes('\0')) id = value;
    else if (name === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  };

  const push = (text: string) => {
    buffer += text;
    for (;;) {
      const end = buffer.search(/[\r\n]/);
      if (end < 0) return;
      // A CR at the very end may be the first half of a CRLF: wait for the next piece.
      if (buffer[end] === '\r' && end === buffer.length - 1) return;
      const width = buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + width);
      field(line);
    }
  };

  return { push, lastEventId: () => lastEventId, retryMs: () => retry };
}
