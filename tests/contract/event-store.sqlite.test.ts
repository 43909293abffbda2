import Database from 'better-sqlite3';
import { filter, firstValueFrom } from 'rxjs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
import { anEvent } from '../support/events';
import { tempDir } from '../support/temp-dir';
import { eventSearchContract } from './event-search.contract';
import { eventStoreContract } from './event-store.contract';

eventStoreContract('sqlite', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'events.db');
  let store = new SqliteEventStore(file);
  return {
    store,
    reopen: async () => {
      await store.close();
      store = new SqliteEventStore(file);
      return store;
    },
    cleanup: async () => {
      await store.close();
      dir.remove();
    },
  };
});

eventSearchContract('sqlite', async () => {
  const dir = tempDir();
  const store = new SqliteEventStore(join(dir.path, 'events.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      dir.remove();
    },
  };
});

describe('sqlite event store: a file written before the search indexes existed', () => {
  it('gets them on opening, and searches the events already there', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'events.db');
    const before = new SqliteEventStore(file);
    const { position } = await before.appendToStream('s-1', [anEvent('Noted', { n: 1 })]);
    await before.close();
    const db = new Database(file);
    const indexes = () =>
      db
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'events_by_%'")
        .pluck()
        .all();
    for (const name of indexes()) db.exec(`DROP INDEX ${name}`);
    expect(indexes()).toEqual([]);
    const reopened = new SqliteEventStore(file);
    try {
      expect(indexes().length).toBeGreaterThan(0);
      const found = await reopened.searchEvents({ organizationId: 'org-test', types: ['Noted'] }, { maxCount: 10 });
      expect(found.map((e) => e.position)).toEqual([position]);
    } finally {
      db.close();
      await reopened.close();
      dir.remove();
    }
  });
});

describe('sqlite event store: two processes on one file', () => {
  const event = (n: number) => anEvent('Noted', { n });

  it("sees the other's appends: at once through headPosition, and its subscribers are woken by the watcher", async () => {
    const dir = tempDir();
    const file = join(dir.path, 'events.db');
    const mine = new SqliteEventStore(file);
    const other = new SqliteEventStore(file);
    try {
      const first = await mine.appendToStream('s-1', [event(1)]);
      expect((await mine.readAll()).map((e) => e.data)).toEqual([{ n: 1 }]);
      const woken = firstValueFrom(mine.appended$.pipe(filter((p) => p > first.position)));
      const { position } = await other.appendToStream('s-2', [event(2)]);
      expect(await woken).toBe(position);
      expect((await mine.readAll({ after: first.position })).map((e) => e.data)).toEqual([{ n: 2 }]);
      // Asked for its head (as the read-your-writes door does), it reads what was just acknowledged.
      const next = await other.appendToStream('s-2', [event(3)]);
      expect(await mine.headPosition()).toBe(next.position);
      expect((await mine.readAll({ after: position })).map((e) => e.data)).toEqual([{ n: 3 }]);
    } finally {
      await mine.close();
      await other.close();
      dir.remove();
    }
  });
});

describe('sqlite event store: batches that queue up at the writer', () => {
  it('commits them together, each append answered with its own outcome, its subscribers woken once all are in memory', async () => {
    const dir = tempDir();
    const store = new SqliteEventStore(join(dir.path, 'events.db'));
    try {
      const taken = await store.appendToStream('taken', [anEvent('Noted', { n: -1 })]);
      const heads: number[] = [];
      const seen = store.appended$.subscribe((head) => heads.push(head));
      // One batch per turn of the event loop: the later ones reach the writer while it commits the first.
      const appends: Promise<unknown>[] = [];
      for (let turn = 0; turn < 5; turn++) {
        for (let i = 0; i < 4; i++)
          appends.push(store.appendToStream(`s-${turn}-${i}`, [anEvent('Noted', { n: turn * 4 + i })]));
        appends.push(
          store.appendToStream('taken', [anEvent('Noted', { n: 100 + turn })], { expectedRevision: 'no_stream' }).then(
            () => 'appended',
            (error: Error) => error.name,
          ),
        );
        await new Promise((r) => setImmediate(r));
      }
      const outcomes = await Promise.all(appends);
      seen.unsubscribe();
      expect(outcomes.filter((o) => typeof o === 'string')).toEqual(Array(5).fill('WrongExpectedRevisionError'));
      const positions = outcomes.flatMap((o) => (typeof o === 'object' ? [(o as { position: number }).position] : []));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      const all = await store.readAll({ after: taken.position });
      expect(all.map((e) => e.position)).toEqual(positions);
      expect(all.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
      // Each head announced is one whose events the store already holds in memory.
      expect(heads[heads.length - 1]).toBe(positions[positions.length - 1]);
      for (const head of heads) expect(positions).toContain(head);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('sqlite event store: an append refused in a batch', () => {
  it('takes back every event of an append of several, and none of the appends beside it in the batch', async () => {
    const dir = tempDir();
    const store = new SqliteEventStore(join(dir.path, 'events.db'));
    try {
      const taken = anEvent('Noted', { n: 0 });
      await store.appendToStream('holder', [taken]);
      await store.appendToStream('existing', [anEvent('Noted', { n: 1 })]);
      // One turn of the event loop: one batch, one transaction at the writer.
      const outcome = (append: Promise<unknown>) =>
        append.then(
          () => 'appended',
          (error: Error) => error.name,
        );
      const outcomes = await Promise.all([
        outcome(store.appendToStream('single-before', [anEvent('Noted', { n: 2 })], { expectedRevision: 'no_stream' })),
        // The second event's id is taken: the first, new to the log, must not stay either.
        outcome(
          store.appendToStream('new-stream', [anEvent('Noted', { n: 3 }), taken], { expectedRevision: 'no_stream' }),
        ),
        outcome(store.appendToStream('existing', [anEvent('Noted', { n: 4 }), taken], { expectedRevision: 0 })),
        // One event refused on its own (its stream exists), between appends that land.
        outcome(store.appendToStream('existing', [anEvent('Noted', { n: 5 })], { expectedRevision: 'no_stream' })),
        outcome(store.appendToStream('single-after', [anEvent('Noted', { n: 6 })], { expectedRevision: 'no_stream' })),
        outcome(store.appendToStream('existing', [anEvent('Noted', { n: 7 })], { expectedRevision: 0 })),
      ]);
      expect(outcomes).toEqual([
        'appended',
        'WrongExpectedRevisionError',
        'WrongExpectedRevisionError',
        'WrongExpectedRevisionError',
        'appended',
        'appended',
      ]);
      expect(await store.readStream('new-stream')).toEqual([]);
      expect((await store.readStream('existing')).map((e) => (e.data as { n: number }).n)).toEqual([1, 7]);
      const all = await store.readAll();
      expect(all.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 6, 7]);
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('sqlite event store: the newest events kept in memory', () => {
  it('keeps what the newest appends weigh, not the data of every one of the last 50,000 events', async () => {
    const dir = tempDir();
    const store = new SqliteEventStore(join(dir.path, 'events.db'));
    try {
      const first = anEvent('Noted', { n: 0 });
      await store.appendToStream('zero', [anEvent('Noted', { n: -1 })]);
      const { position } = await store.appendToStream('first', [first]);
      const readFirst = async () => (await store.readAll({ after: position - 1, maxCount: 1 }))[0]!;
      // Served from memory: the very object appended.
      expect((await readFirst()).data).toBe(first.data);
      // 40 MiB of events since, in appends of a few: past what the store keeps.
      const text = 'x'.repeat(256 * 1024);
      for (let i = 0; i < 160; i += 4)
        await Promise.all(
          [0, 1, 2, 3].map((j) => store.appendToStream(`big-${i + j}`, [anEvent('Noted', { n: i + j + 1, text })])),
        );
      const again = await readFirst();
      expect(again.data).toEqual(first.data);
      expect(again.data).not.toBe(first.data);
      // Every position is still read, in order, from the file and from memory.
      const all = await store.readAll({ after: position - 1 });
      expect(all.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 161 }, (_, n) => n));
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
