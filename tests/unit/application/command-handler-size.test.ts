/**
 * Appends stay within the size an event store accepts (EventStoreDB: 1 MiB by default): long lists
 * are recorded in parts, a group commit takes only what fits, and a command too large for one append
 * is appended in slices that survive another writer getting in between.
 */
import { CommandHandler, MAX_APPEND_BYTES } from '../../../application/command-handler';
import type { EventData, ExpectedRevision } from '../../../application/ports/event-store';
import {
  blacklistDecider,
  blacklistKey,
  blacklistStreamId,
  type BlacklistCommand,
  type BlacklistEvent,
} from '../../../domain/blacklist/blacklist';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { RecordingEventStore } from '../../support/recording-event-store';

const at = '2026-01-01T00:00:00.000Z';
const ctx = { organizationId: 'o1', actor: 'tester', requestId: 'r1' };
const stream = blacklistStreamId('o1');

/** `count` numbers from `from` on, each with a name of 200 three-byte characters: the API's largest. */
const entries = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    number: `+9198${String(from + i).padStart(8, '0')}`,
    name: 'म'.repeat(200),
  }));
const add = (list: { number: string; name: string }[]): BlacklistCommand => ({
  type: 'AddToBlacklist',
  organizationId: 'o1',
  entries: list,
  at,
});

/** The numbers listed after folding the stream, each as often as an event recorded it. */
async function listed(store: MemoryEventStore): Promise<{ distinct: number; recorded: number }> {
  const events = await store.readStream(stream);
  const numbers = events.flatMap(
    (e) => (e.data as Extract<BlacklistEvent, { type: 'NumbersBlacklisted' }>['data']).entries,
  );
  return { distinct: new Set(numbers.map((n) => blacklistKey(n.number))).size, recorded: numbers.length };
}

describe('command handler: append size', () => {
  it('records a 10,000-number import of about 6 MB in parts, appended in slices within the limit', async () => {
    const memory = new MemoryEventStore();
    const store = new RecordingEventStore(memory);
    const result = await new CommandHandler(store).handle(blacklistDecider, stream, add(entries(0, 10_000)), ctx);
    expect(store.appends.length).toBeGreaterThan(1);
    for (const append of store.appends) expect(append.bytes).toBeLessThanOrEqual(MAX_APPEND_BYTES);
    expect(store.appends.reduce((sum, a) => sum + a.bytes, 0)).toBeGreaterThan(5_000_000);
    expect(await listed(memory)).toEqual({ distinct: 10_000, recorded: 10_000 });
    // The answer names where the last part landed: reading up to it sees the whole import.
    const events = await memory.readStream(stream);
    expect(result.position).toBe(events.at(-1)!.position);
    expect(result.nextExpectedRevision).toBe(events.length - 1);
  });

  it('a group commit takes only the commands that fit and leaves the others for the next append', async () => {
    const memory = new MemoryEventStore();
    const store = new RecordingEventStore(memory);
    const handler = new CommandHandler(store);
    // Commands of about 100 kB (one event) and 340 kB (two events) in turn: the sizes at which
    // filling appends event by event would cut a command in two.
    const sizes = [160, 550, 160, 550, 160, 550];
    const starts = sizes.map((_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0));
    await Promise.all(
      sizes.map((size, i) =>
        handler.handle(blacklistDecider, stream, add(entries(starts[i]!, size)), { ...ctx, requestId: `r${i}` }),
      ),
    );
    expect(store.appends.length).toBeGreaterThan(1);
    expect(store.appends.length).toBeLessThan(sizes.length); // still grouped
    // Each command's events are in one append, never cut across two.
    const appendsOf = (requestId: string) => store.appends.filter((a) => a.requestIds.includes(requestId)).length;
    for (const i of sizes.keys()) expect(appendsOf(`r${i}`)).toBe(1);
    for (const append of store.appends) expect(append.bytes).toBeLessThanOrEqual(MAX_APPEND_BYTES);
    expect(await listed(memory)).toEqual({ distinct: 2130, recorded: 2130 });
  });

  it('another writer between two slices: the command is decided again and records only the rest', async () => {
    const memory = new MemoryEventStore();
    const other = new CommandHandler(memory);
    let interfered = false;
    const store = new RecordingEventStore(memory);
    const append = store.appendToStream.bind(store);
    store.appendToStream = async (
      streamId: string,
      events: readonly EventData[],
      options?: { expectedRevision?: ExpectedRevision },
    ) => {
      const result = await append(streamId, events, options);
      if (!interfered) {
        interfered = true;
        // Overlaps the import's last numbers and adds one of its own.
        await other.handle(blacklistDecider, stream, add(entries(9_990, 11)), ctx);
      }
      return result;
    };
    await new CommandHandler(store).handle(blacklistDecider, stream, add(entries(0, 10_000)), ctx);
    expect(interfered).toBe(true);
    for (const noted of store.appends) expect(noted.bytes).toBeLessThanOrEqual(MAX_APPEND_BYTES);
    // Every number once: the numbers the other writer listed first were not recorded again.
    expect(await listed(memory)).toEqual({ distinct: 10_001, recorded: 10_001 });
  });
});
