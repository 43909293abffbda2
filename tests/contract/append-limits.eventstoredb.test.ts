/**
 * The size limit of a real EventStoreDB / KurrentDB server (1 MiB per append by default): an import
 * too large for one append is refused when sent whole, and lands through the command handler, which
 * records it in parts and appends them in slices. Skipped, with the reason, where no container
 * runtime is reachable.
 */
import { CommandHandler } from '../../application/command-handler';
import { blacklistDecider, blacklistStreamId } from '../../domain/blacklist/blacklist';
import { EventStoreDbEventStore } from '../../infrastructure/eventstoredb/eventstoredb-event-store';
import { containerRuntime } from '../support/container-runtime';
import { anEvent } from '../support/events';
import { startKurrentDb, type KurrentServer } from '../support/kurrent-container';

const runtime = containerRuntime();
const at = '2026-01-01T00:00:00.000Z';
const ctx = { organizationId: 'o1', actor: 'tester', requestId: 'r1' };
const entries = Array.from({ length: 10_000 }, (_, i) => ({
  number: `+9198${String(i).padStart(8, '0')}`,
  name: 'ಕ'.repeat(200),
}));

if (runtime.available) {
  describe('EventStoreDB append size', () => {
    let server: KurrentServer;
    let store: EventStoreDbEventStore;
    beforeAll(async () => {
      server = await startKurrentDb();
      store = new EventStoreDbEventStore(server.url, { retryAppendsForMs: 0 });
    }, 180_000);
    afterAll(async () => {
      await store?.close();
      await server?.stop();
    });

    it('refuses the whole import as one event', async () => {
      const whole = anEvent('NumbersBlacklisted', { organizationId: 'o1', entries, at });
      await expect(store.appendToStream(`too-big-${Date.now()}`, [whole])).rejects.toThrow();
    });

    it('takes it through the command handler, in parts within the limit', async () => {
      const stream = blacklistStreamId(`o-${Date.now()}`);
      const result = await new CommandHandler(store).handle(
        blacklistDecider,
        stream,
        { type: 'AddToBlacklist', organizationId: 'o1', entries, at },
        ctx,
      );
      const events = await store.readStream(stream);
      expect(events.length).toBeGreaterThan(1);
      expect(result.nextExpectedRevision).toBe(events.length - 1);
      expect(events.flatMap((e) => (e.data as { entries: unknown[] }).entries)).toHaveLength(10_000);
    }, 60_000);
  });
} else {
  console.warn(`Skipping EventStoreDB append size suite: ${runtime.reason}`);
  describe.skip(`EventStoreDB append size suite (skipped: ${runtime.reason})`, () => {
    it('runs where a container runtime is reachable', () => undefined);
  });
}
