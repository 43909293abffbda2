/**
 * The live feed without HTTP: which events it sends, from where, and what it holds when its
 * connection stops taking them (a sink that answers as `res.write` does).
 */
import {
  LiveFeed,
  liveEventOf,
  startPosition,
  type FeedSink,
  type LiveEvent,
} from '../../../application/events/live-feed';
import { message } from '../../../api/events/sse';
import type { EventStore } from '../../../application/ports/event-store';
import { join } from 'node:path';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { tempDir } from '../../support/temp-dir';
import { anEvent, testMetadata } from '../../support/events';

const ORG = 'org-a';

const append = (store: EventStore, streamId: string, type: string, organizationId: string | null = ORG) =>
  store.appendToStream(streamId, [{ ...anEvent(type), metadata: testMetadata({ organizationId }) }]);

/** A sink that takes everything and records it. */
function collecting(): FeedSink & { received: LiveEvent[]; next: (n: number) => Promise<void> } {
  const received: LiveEvent[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    received,
    send: (event) => {
      received.push(event);
      for (const waiter of waiters) if (received.length >= waiter.n) waiter.resolve();
      return true;
    },
    drained: () => Promise.resolve(),
    next: (n) => new Promise((resolve) => (received.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

function running(store: EventStore, filter: Partial<ConstructorParameters<typeof LiveFeed>[1]>, after: number) {
  const end = new AbortController();
  const feed = new LiveFeed(store, { organizationId: ORG, ...filter }, { after, signal: end.signal, pageSize: 10 });
  return { feed, end };
}

describe('live feed', () => {
  it("sends the organization's own events, after the position, as they are appended, and nothing else", async () => {
    const store = new MemoryEventStore();
    await append(store, 'campaign-1', 'CampaignCreated');
    const head = await startPosition(store, undefined);
    const { feed, end } = running(store, {}, head);
    const sink = collecting();
    const done = feed.run(sink);
    await append(store, 'campaign-2', 'CampaignCreated', 'org-b');
    await append(store, 'snapshot-organization-a', 'Snapshot', null);
    await append(store, 'campaign-1', 'CampaignPaused');
    await sink.next(1);
    end.abort();
    expect(await done).toBe('closed');
    expect(sink.received.map((e) => [e.stream, e.type, e.metadata.organizationId])).toEqual([
      ['campaign-1', 'CampaignPaused', ORG],
    ]);
    expect(sink.received[0]!.position).toBe(3);
  });

  it('keeps only the types and stream prefixes asked for', async () => {
    const store = new MemoryEventStore();
    await append(store, 'campaign-1', 'CampaignCreated');
    await append(store, 'campaign-1', 'CampaignPaused');
    await append(store, 'call-1', 'CallQueued');
    await append(store, 'chat-1', 'ChatRequested');
    await append(store, 'agent-1', 'CampaignCreated');
    const { feed, end } = running(
      store,
      { types: ['CampaignCreated', 'CallQueued'], streams: ['campaign-', 'call-'] },
      -1,
    );
    const sink = collecting();
    const done = feed.run(sink);
    await sink.next(2);
    end.abort();
    await done;
    expect(sink.received.map((e) => `${e.stream}:${e.type}`)).toEqual([
      'campaign-1:CampaignCreated',
      'call-1:CallQueued',
    ]);
  });

  it('masks the secrets events carry, as the audit does', async () => {
    const store = new MemoryEventStore();
    const secret = 'a-very-secret-webhook-secret';
    await store.appendToStream('webhookSettings-org-a', [
      {
        ...anEvent('WebhookConfigured', { url: 'https://example.com/hook', secret }),
        metadata: testMetadata({ organizationId: ORG }),
      },
    ]);
    const { feed, end } = running(store, {}, -1);
    const sink = collecting();
    const done = feed.run(sink);
    await sink.next(1);
    end.abort();
    await done;
    expect(JSON.stringify(sink.received[0]!.data)).not.toContain(secret);
  });

  it('makes the view and the message of an event once for every connection the store hands it to', async () => {
    // SQLite's store hands every reader the recent events it keeps in memory, as the same objects.
    const dir = tempDir();
    const store = new SqliteEventStore(join(dir.path, 'events.db'));
    try {
      const secret = 'a-very-secret-webhook-secret';
      await append(store, 'campaign-1', 'CampaignCreated');
      // Following from the head, as connections do: what is appended next is read from memory.
      const head = await startPosition(store, undefined);
      const feeds = [running(store, {}, head), running(store, {}, head)];
      const sinks = [collecting(), collecting()];
      const done = feeds.map(({ feed }, i) => feed.run(sinks[i]!));
      await store.appendToStream('webhookSettings-org-a', [
        {
          ...anEvent('WebhookConfigured', { url: 'https://example.com/hook', secret }),
          metadata: testMetadata({ organizationId: ORG }),
        },
      ]);
      await Promise.all(sinks.map((sink) => sink.next(1)));
      feeds.forEach(({ end }) => end.abort());
      await Promise.all(done);
      const [first, second] = sinks.map((sink) => sink.received[0]!);
      expect(second).toBe(first);
      expect(message(second!)).toBe(message(first!));
      expect(message(first!)).not.toContain(secret);
      // The same event read as another object (another store, an erasure since) gets a view of its own.
      const [recorded] = await store.readAll({ after: head, maxCount: 1 });
      const copy = { ...recorded!, metadata: { ...recorded!.metadata } };
      expect(liveEventOf(copy)).not.toBe(liveEventOf(recorded!));
      expect(message(liveEventOf(copy))).toBe(message(first!));
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('stops reading the store while its connection does not drain, holding at most one page, then lets it go', async () => {
    const store = new MemoryEventStore();
    for (let n = 0; n < 200; n++) await append(store, `campaign-${n}`, 'CampaignCreated');
    let sent = 0;
    let drain: () => void = () => undefined;
    const stalled: FeedSink = {
      // Full after the third message, as `res.write` answers once the socket's buffer is over its mark.
      send: () => ++sent < 3,
      drained: () => new Promise((resolve) => (drain = resolve)),
    };
    const end = new AbortController();
    const feed = new LiveFeed(
      store,
      { organizationId: ORG },
      { after: -1, signal: end.signal, pageSize: 10, stallMs: 300 },
    );
    const done = feed.run(stalled);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // One page of ten read, three handed over, seven held; nothing more read while it waits.
    expect(feed.read).toBe(10);
    expect(feed.buffered).toBe(7);
    for (let n = 0; n < 100; n++) await append(store, `campaign-late-${n}`, 'CampaignCreated');
    expect(feed.read).toBe(10);
    expect(await done).toBe('stalled');
    expect(feed.buffered).toBe(0);
    expect(sent).toBe(3);
    drain();
  });

  it('goes on once its connection drains, with every event in order', async () => {
    const store = new MemoryEventStore();
    for (let n = 0; n < 25; n++) await append(store, `campaign-${n}`, 'CampaignCreated');
    const positions: number[] = [];
    const drains: (() => void)[] = [];
    const slow: FeedSink = {
      send: (event) => (positions.push(event.position), positions.length % 4 !== 0),
      drained: () => new Promise((resolve) => drains.push(resolve)),
    };
    const end = new AbortController();
    const feed = new LiveFeed(
      store,
      { organizationId: ORG },
      { after: 4, signal: end.signal, pageSize: 10, stallMs: 5000 },
    );
    const done = feed.run(slow);
    while (positions.length < 20) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      drains.shift()?.();
    }
    end.abort();
    expect(await done).toBe('closed');
    expect(positions).toEqual(Array.from({ length: 20 }, (_, i) => i + 5));
  });

  it('starts at the head when no position is given', async () => {
    const store = new MemoryEventStore();
    expect(await startPosition(store, undefined)).toBe(-1);
    await append(store, 'campaign-1', 'CampaignCreated');
    await append(store, 'campaign-1', 'CampaignPaused');
    expect(await startPosition(store, undefined)).toBe(1);
    expect(await startPosition(store, 0)).toBe(0);
  });
});
