/**
 * `GET /api/v1/events/live` over HTTP: Server-Sent Events of the organization's own events, compared
 * with what the event store itself holds.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { Foreground } from '../../../application/foreground';
import { countRequests } from '../../../api/http/foreground';
import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };
type Message = { id?: string; event?: string; data?: string };

/** An SSE client over node:http: the messages and comments received so far. */
type Feed = {
  status: number;
  headers: IncomingMessage['headers'];
  messages: Message[];
  comments: string[];
  ended: Promise<void>;
  /** Resolves once `check` holds of what was received (fails after 5 s). */
  until: (check: (feed: Feed) => boolean) => Promise<void>;
  close: () => void;
};

function parse(block: string, feed: Feed): void {
  const message: Message = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) feed.comments.push(line.slice(1).trim());
    else {
      const at = line.indexOf(':');
      const field = line.slice(0, at) as keyof Message;
      message[field] = line.slice(at + 1).replace(/^ /, '');
    }
  }
  if (Object.keys(message).length > 0) feed.messages.push(message);
}

function openFeed(t: TestService, query: string, token: string | null, headers: Record<string, string> = {}) {
  return new Promise<Feed>((resolve, reject) => {
    const req = httpRequest(`${t.url}/api/v1/events/live${query}`, {
      headers: { ...headers, ...(token && { authorization: `Bearer ${token}` }) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      const feed: Feed = {
        status: res.statusCode!,
        headers: res.headers,
        messages: [],
        comments: [],
        ended: new Promise((done) => res.once('close', done)),
        until: async (check) => {
          const deadline = Date.now() + 5000;
          while (!check(feed)) {
            if (Date.now() > deadline) throw new Error(`not received: ${JSON.stringify(feed.messages)}`);
            await new Promise((r) => setTimeout(r, 10));
          }
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          parse(text.slice(0, end), feed);
          text = text.slice(end + 2);
        }
      });
      res.on('error', () => undefined);
      resolve(feed);
    });
    req.end();
  });
}

const events = (feed: Feed) => feed.messages.filter((m) => m.data !== undefined);
const positions = (feed: Feed) => events(feed).map((m) => Number(m.id));

describe.each(['memory', 'sqlite'] as const)('live event feed (%s stores)', (store) => {
  let t: TestService;
  let org: Org;
  let other: Org;
  const open: Feed[] = [];
  beforeAll(async () => {
    t = await startTestService({ store, env: { LIVE_FEED_KEEP_ALIVE_MS: '50' } });
  });
  beforeEach(async () => {
    org = await t.newOrganization();
    other = await t.newOrganization();
  });
  afterEach(() => open.splice(0).forEach((feed) => feed.close()));
  afterAll(() => t.stop());

  const follow = async (query = '', token: string | null = org.token, headers: Record<string, string> = {}) => {
    const feed = await openFeed(t, query, token, headers);
    open.push(feed);
    return feed;
  };
  const createDisposition = async (who: Org, name: string) => {
    const reply = await t.request('POST', '/api/v1/dispositions', { token: who.token, body: { name } });
    expect(reply.status).toBe(201);
  };
  const blacklist = async (who: Org, number: string) => {
    const reply = await t.request('POST', '/api/v1/blacklist/bulk/add', { token: who.token, body: [{ number }] });
    expect(reply.status).toBe(200);
  };
  /** Positions of `who`'s events in the store after `after`, as the store itself reads them. */
  const storedPositions = async (who: Org, after: number) =>
    (await t.service.events.readAll({ after }))
      .filter((e) => e.metadata.organizationId === who.id)
      .map((e) => e.position);

  it('sends the organization’s new events, and only its own, as SSE messages', async () => {
    const feed = await follow();
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(feed.headers['cache-control']).toBe('no-cache');
    expect(feed.headers['connection']).toBe('keep-alive');
    expect(feed.headers['x-accel-buffering']).toBe('no');
    // First an id alone: the position to resume from, which dispatches no event.
    await feed.until((f) => f.messages.length > 0);
    const start = Number(feed.messages[0]!.id);
    expect(feed.messages[0]).toEqual({ id: String(start) });

    await createDisposition(other, 'Not ours');
    await createDisposition(org, 'Promise to pay');
    await createDisposition(other, 'Not ours either');
    await blacklist(org, '+14155550100');
    const expected = await storedPositions(org, start);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    await feed.until((f) => events(f).length >= expected.length);
    expect(positions(feed)).toEqual(expected);

    const stored = await t.service.events.readAll({ after: start });
    for (const message of events(feed)) {
      const event = stored.find((e) => e.position === Number(message.id))!;
      expect(message.event).toBe(event.type);
      expect(JSON.parse(message.data!)).toEqual({
        stream: event.streamId,
        type: event.type,
        data: event.data,
        recorded_at: event.recordedAt,
        metadata: event.metadata,
      });
      expect(event.metadata.organizationId).toBe(org.id);
    }
  });

  it('keeps only the event types and stream prefixes asked for', async () => {
    const byType = await follow('?types=DispositionCreated,NoSuchType');
    const byStream = await follow(`?streams=nothing-,blacklist-${org.id}`);
    await Promise.all([byType, byStream].map((f) => f.until((g) => g.messages.length > 0)));
    await createDisposition(org, 'Call back');
    await blacklist(org, '+14155550101');
    await byType.until((f) => events(f).length >= 1);
    await byStream.until((f) => events(f).length >= 1);
    // Whatever came later would have come by now: the feeds follow the same store.
    await createDisposition(org, 'Last one');
    await byType.until((f) => events(f).length >= 2);
    expect(events(byType).map((m) => m.event)).toEqual(['DispositionCreated', 'DispositionCreated']);
    expect(events(byStream).every((m) => JSON.parse(m.data!).stream === `blacklist-${org.id}`)).toBe(true);
    expect(events(byStream).length).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['the Last-Event-ID header', (id: string) => ['', { 'Last-Event-ID': id }] as const],
    // An EventSource reconnects to its first URL: the header wins over `after`.
    ['the header over ?after=', (id: string) => ['?after=-1', { 'Last-Event-ID': id }] as const],
    ['?after=', (id: string) => [`?after=${id}`, {}] as const],
  ])('resumes with %s after a disconnect: no gap, no duplicate', async (_name, resume) => {
    const first = await follow();
    await first.until((f) => f.messages.length > 0);
    const start = Number(first.messages[0]!.id);
    await createDisposition(org, 'One');
    await createDisposition(org, 'Two');
    await first.until((f) => events(f).length >= 2);
    first.close();
    await first.ended;
    const lastId = first.messages[first.messages.length - 1]!.id!;
    // Written while nobody listens.
    await createDisposition(org, 'Three');
    await createDisposition(other, 'Elsewhere');
    await blacklist(org, '+14155550102');
    const [query, headers] = resume(lastId);
    const second = await follow(query, org.token, headers);
    await createDisposition(org, 'Four');
    const expected = await storedPositions(org, start);
    await second.until((f) => positions(first).length + positions(f).length >= expected.length);
    expect([...positions(first), ...positions(second)]).toEqual(expected);
  });

  it('sends a keep-alive comment at the configured interval', async () => {
    const feed = await follow();
    await feed.until((f) => f.comments.length >= 3);
    expect(new Set(feed.comments)).toEqual(new Set(['keep-alive']));
  });

  it('answers 401 without a token, 403 without analytics:read or audit:read, 200 with either', async () => {
    const anonymous = await t.request('GET', '/api/v1/events/live', { token: null });
    expect(anonymous.status).toBe(401);
    const logsOnly = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const refused = await t.request('GET', '/api/v1/events/live', { token: logsOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("You don't have the required permission to perform this action");
    for (const scope of ['analytics:read', 'audit:read']) {
      const feed = await follow('', await t.tokenFor(org.id, { scopes: [scope] }));
      expect(feed.status).toBe(200);
    }
  });

  it('refuses a bad position or filter with 400', async () => {
    expect((await t.request('GET', '/api/v1/events/live?after=x', { token: org.token })).status).toBe(400);
    const badHeader = await t.request('GET', '/api/v1/events/live', {
      token: org.token,
      headers: { 'Last-Event-ID': 'abc' },
    });
    expect(badHeader.status).toBe(400);
    expect((await t.request('GET', '/api/v1/events/live?types=a,,b', { token: org.token })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/events/live?org=x', { token: org.token })).status).toBe(400);
  });
});

describe('live event feed: a client that stops reading', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { LIVE_FEED_STALL_MS: '1000' } });
  });
  afterAll(() => t.stop());

  const gauge = async (name: string) => {
    const text = (await t.request('GET', '/metrics')).text;
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)![1]);
  };

  it('is not buffered for without bound: the server holds at most a page, then lets the client go', async () => {
    const org = await t.newOrganization();
    const { port } = new URL(t.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(
      `GET /api/v1/events/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.token}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    const headersSeen = new Promise((resolve) => socket.once('data', resolve));
    await headersSeen;
    // From here on the client reads nothing.
    socket.pause();
    socket.on('error', () => undefined);
    // About 2.5 MB of events per import (parts of up to 192 KiB): far more than the sockets hold.
    const name = 'x'.repeat(200);
    let mostBuffered = 0;
    for (let batch = 0; batch < 12 && (await gauge('live_feed_connections')) === 1; batch++) {
      const numbers = Array.from({ length: 10_000 }, (_, n) => ({
        number: `+1${batch}${String(n).padStart(9, '0')}`,
        name,
      }));
      const reply = await t.request('POST', '/api/v1/blacklist/bulk/add', { token: org.token, body: numbers });
      expect(reply.status).toBe(200);
      mostBuffered = Math.max(mostBuffered, await gauge('live_feed_buffered_events'));
    }
    // Let go once it took nothing for LIVE_FEED_STALL_MS; a server writing on regardless would keep it.
    const deadline = Date.now() + 5000;
    while ((await gauge('live_feed_connections')) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await gauge('live_feed_connections')).toBe(0);
    socket.destroy();
    // A page is 100 events: what the server held for it stayed within one.
    expect(mostBuffered).toBeLessThanOrEqual(100);
  }, 30_000);
});

describe('live event feed: shutdown and background work', () => {
  it('ends every open feed once the service starts shutting down', async () => {
    const t = await startTestService();
    try {
      const org = await t.newOrganization();
      const feed = await openFeed(t, '', org.token);
      await feed.until((f) => f.messages.length > 0);
      t.service.beginShutdown();
      const ended = await Promise.race([feed.ended.then(() => true), new Promise((r) => setTimeout(r, 2000, false))]);
      expect(ended).toBe(true);
    } finally {
      await t.stop();
    }
  });

  it('does not count an open feed as a request background work gives way to', async () => {
    const foreground = new Foreground();
    const app = express();
    app.use(countRequests(foreground));
    app.get('/api/v1/events/live', (_req, res) => void res.write(': open\n\n'));
    app.get('/api/v1/other', (_req, res) => void res.write(': open\n\n'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    const hold = (path: string) =>
      new Promise<() => void>((resolve) => {
        const req = httpRequest(`http://127.0.0.1:${port}${path}`, (res) =>
          res.once('data', () => resolve(() => req.destroy())),
        );
        req.on('error', () => undefined);
        req.end();
      });
    const quietWithin = async () => {
      const started = Date.now();
      await foreground.quiet(1000);
      return Date.now() - started;
    };
    try {
      const feed = await hold('/api/v1/events/live');
      expect(await quietWithin()).toBeLessThan(100);
      // The control: an ordinary request still in progress is waited for.
      const other = await hold('/api/v1/other');
      expect(await quietWithin()).toBeGreaterThanOrEqual(900);
      feed();
      other();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
