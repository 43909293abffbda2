/**
 * The console's reading of the live feed (docs/live-feed.md): its Server-Sent Events parser, and the
 * follower that connects again after a disconnect with the last id received as `Last-Event-ID`.
 */
import { followLiveFeed, type FeedStatus } from '../../../console/src/components/live-feed';
import { sseParser, type SseMessage } from '../../../console/src/components/sse-parser';

const parse = (pieces: string[]) => {
  const messages: SseMessage[] = [];
  const parser = sseParser((m) => messages.push(m));
  pieces.forEach((piece) => parser.push(piece));
  return { messages, lastEventId: parser.lastEventId(), retry: parser.retryMs() };
};

describe('the SSE parser', () => {
  it('reads messages cut anywhere, with LF, CRLF or CR line ends, comments and multi-line data', () => {
    const text =
      'id: 7\r\nevent: DispositionCreated\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\nid:8\rdata: one\rdata:two\r\rretry: 2500\n\n';
    const whole = parse([text]);
    expect(whole.messages).toEqual([
      { id: '7', event: 'DispositionCreated', data: '{"a":1}' },
      { id: '8', event: 'message', data: 'one\ntwo' },
    ]);
    expect(whole.retry).toBe(2500);
    // The same, one character at a time (a CRLF cut in two included).
    expect(parse([...text]).messages).toEqual(whole.messages);
  });

  it('moves the last id on a message with an id alone, dispatching nothing', () => {
    const { messages, lastEventId } = parse(['id: 1042\n\n']);
    expect(messages).toEqual([]);
    expect(lastEventId).toBe('1042');
  });

  it('does not dispatch a message cut off before its blank line', () => {
    const { messages, lastEventId } = parse(['id: 3\ndata: {"cut']);
    expect(messages).toEqual([]);
    expect(lastEventId).toBe('');
  });
});

describe('following the live feed', () => {
  const body = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });

  it('sends the token in a header, and after a disconnect resumes from the last id received', async () => {
    const stop = new AbortController();
    const asked: { url: string; headers: Record<string, string> }[] = [];
    const answers = [
      'id: 10\n\nid: 11\nevent: CallQueued\ndata: {"stream":"call-1"}\n\nid: 12\nevent: Cut',
      'id: 12\nevent: CallRinging\ndata: {"stream":"call-1"}\n\n',
    ];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      asked.push({ url, headers: init.headers as Record<string, string> });
      const text = answers.shift();
      if (text === undefined) {
        stop.abort();
        throw new Error('aborted');
      }
      return new Response(body(text), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }) as unknown as typeof fetch;
    const messages: SseMessage[] = [];
    const statuses: FeedStatus['state'][] = [];
    await followLiveFeed({
      url: '/api/v1/events/live',
      headers: () => ({ authorization: 'Bearer t0ken' }),
      onMessage: (m) => messages.push(m),
      onStatus: (s) => statuses.push(s.state),
      signal: stop.signal,
      fetch: fakeFetch,
      retryMs: 1,
    });
    expect(messages.map((m) => [m.id, m.event])).toEqual([
      ['11', 'CallQueued'],
      ['12', 'CallRinging'],
    ]);
    expect(asked.map((a) => a.url)).toEqual(Array(3).fill('/api/v1/events/live'));
    expect(asked.map((a) => a.headers.authorization)).toEqual(Array(3).fill('Bearer t0ken'));
    expect(asked.map((a) => a.headers['last-event-id'])).toEqual([undefined, '11', '12']);
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'open', 'reconnecting', 'stopped']);
  });

  it('stops, saying why, when the service refuses the feed', async () => {
    const refused = (async () =>
      new Response(JSON.stringify({ success: false, message: 'Insufficient permissions' }), {
        status: 403,
      })) as unknown as typeof fetch;
    const statuses: FeedStatus[] = [];
    await followLiveFeed({
      url: '/api/v1/events/live',
      headers: () => ({}),
      onMessage: () => {},
      onStatus: (s) => statuses.push(s),
      signal: new AbortController().signal,
      fetch: refused,
    });
    expect(statuses.at(-1)).toEqual({ state: 'stopped', reason: 'Insufficient permissions' });
  });
});
