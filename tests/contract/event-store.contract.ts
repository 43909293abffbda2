/**
 * The behaviour every event store adapter must have. Each adapter's test file calls
 * `eventStoreContract` with a factory; the production adapters run the same suite.
 */
import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '../../application/ports/event-store';
import { WrongExpectedRevisionError } from '../../application/ports/event-store';
import { subscribeToAll } from '../../application/subscribe-to-all';
import { anEvent } from '../support/events';

export type EventStoreFixture = {
  store: EventStore;
  /** Closes and opens the same storage again; absent for stores that do not persist. */
  reopen?: () => Promise<EventStore>;
  cleanup: () => Promise<void>;
};

export function eventStoreContract(name: string, open: () => Promise<EventStoreFixture>): void {
  describe(`event store contract: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    const stream = () => `test-${randomUUID()}`;

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('appends to a new stream and reads it back in order with revisions from 0', async () => {
      const id = stream();
      const result = await store.appendToStream(id, [anEvent('A', { n: 1 }), anEvent('B', { n: 2 })], {
        expectedRevision: 'no_stream',
      });
      expect(result.nextExpectedRevision).toBe(1);
      const events = await store.readStream(id);
      expect(events.map((e) => [e.type, e.revision, e.data])).toEqual([
        ['A', 0, { n: 1 }],
        ['B', 1, { n: 2 }],
      ]);
      expect(events[1]!.position).toBeGreaterThan(events[0]!.position);
      expect(result.position).toBe(events[1]!.position);
      expect(events[0]!.metadata.organizationId).toBe('org-test');
    });

    it('reads a missing stream as empty', async () => {
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('enforces no_stream, stream_exists and exact revisions', async () => {
      const id = stream();
      await expect(store.appendToStream(id, [anEvent()], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.appendToStream(id, [anEvent()], { expectedRevision: 'no_stream' });
      await expect(store.appendToStream(id, [anEvent()], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(store.appendToStream(id, [anEvent()], { expectedRevision: 5 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.appendToStream(id, [anEvent()], { expectedRevision: 0 });
      await store.appendToStream(id, [anEvent()], { expectedRevision: 'stream_exists' });
      await store.appendToStream(id, [anEvent()], { expectedRevision: 'any' });
      expect((await store.readStream(id)).length).toBe(4);
    });

    it('lets exactly one of many concurrent appends at the same revision win', async () => {
      const id = stream();
      await store.appendToStream(id, [anEvent()]);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => store.appendToStream(id, [anEvent()], { expectedRevision: 0 })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes)
        if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(id)).length).toBe(2);
    });

    it('lets exactly one of many concurrent first appends to a new stream win', async () => {
      const id = stream();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => store.appendToStream(id, [anEvent()], { expectedRevision: 'no_stream' })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes)
        if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(id)).length).toBe(1);
    });

    it('refuses an event id another stream already holds', async () => {
      const event = anEvent('taken');
      await store.appendToStream(stream(), [event], { expectedRevision: 'no_stream' });
      const other = stream();
      await expect(store.appendToStream(other, [event], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      expect(await store.readStream(other)).toEqual([]);
    });

    it('does not duplicate events appended again with the same ids', async () => {
      const id = stream();
      const events = [anEvent('A'), anEvent('B')];
      const first = await store.appendToStream(id, events, { expectedRevision: 'no_stream' });
      const again = await store.appendToStream(id, events, { expectedRevision: 'no_stream' });
      expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect((await store.readStream(id)).map((e) => e.id)).toEqual(events.map((e) => e.id));
    });

    it('reads a stream backwards and from a revision', async () => {
      const id = stream();
      await store.appendToStream(
        id,
        [0, 1, 2, 3, 4].map((n) => anEvent('N', { n })),
      );
      expect((await store.readStream(id, { direction: 'backwards', maxCount: 2 })).map((e) => e.revision)).toEqual([
        4, 3,
      ]);
      expect((await store.readStream(id, { direction: 'backwards', fromRevision: 2 })).map((e) => e.revision)).toEqual([
        2, 1, 0,
      ]);
      expect((await store.readStream(id, { fromRevision: 3 })).map((e) => e.revision)).toEqual([3, 4]);
      expect((await store.readStream(id, { fromRevision: 1, maxCount: 2 })).map((e) => e.revision)).toEqual([1, 2]);
    });

    it('reads all events in one global order, in pages after a position', async () => {
      const a = stream();
      const b = stream();
      await store.appendToStream(a, [anEvent('A1')]);
      await store.appendToStream(b, [anEvent('B1')]);
      await store.appendToStream(a, [anEvent('A2')]);
      const mine = (await store.readAll()).filter((e) => e.streamId === a || e.streamId === b);
      expect(mine.map((e) => e.type)).toEqual(['A1', 'B1', 'A2']);
      const positions = mine.map((e) => e.position);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      const afterFirst = await store.readAll({ after: positions[0]!, maxCount: 1 });
      expect(afterFirst.map((e) => e.type)).toEqual(['B1']);
      expect(await store.headPosition()).toBe(positions[2]);
    });

    it('catches up and then goes live with no gap and no duplicate', async () => {
      const id = stream();
      const start = await store.headPosition();
      for (let i = 0; i < 25; i++) await store.appendToStream(id, [anEvent('N', { i })]);
      const seen: RecordedEvent[] = [];
      const controller = new AbortController();
      const consume = (async () => {
        for await (const batch of subscribeToAll(store, {
          after: start,
          batchSize: 7,
          signal: controller.signal,
          pollMs: 50,
        })) {
          seen.push(...batch.filter((e) => e.streamId === id));
          // A slow consumer: the subscription must wait for it rather than drop or repeat events.
          await new Promise((r) => setTimeout(r, 2));
          if (seen.length >= 60) break;
        }
      })();
      const writes = Array.from({ length: 35 }, (_, k) => store.appendToStream(id, [anEvent('N', { i: 25 + k })]));
      await Promise.all(writes);
      await consume;
      controller.abort();
      expect(seen.map((e) => e.revision)).toEqual(Array.from({ length: 60 }, (_, i) => i));
      expect(new Set(seen.map((e) => e.id)).size).toBe(60);
    });

    if (name !== 'memory') {
      it('keeps every acknowledged event across a restart', async () => {
        if (!fixture.reopen) throw new Error('a persistent adapter must be reopenable');
        const id = stream();
        const acknowledged = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.appendToStream(`${id}-${i % 3}`, [anEvent('N', { i })])),
        );
        store = await fixture.reopen();
        const all = await store.readAll();
        const positions = new Set(all.map((e) => e.position));
        for (const ack of acknowledged) expect(positions.has(ack.position)).toBe(true);
        await store.appendToStream(`${id}-0`, [anEvent()], { expectedRevision: 'stream_exists' });
      });
    }
  });
}
