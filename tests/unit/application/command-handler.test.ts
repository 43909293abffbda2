/**
 * Two command handlers on one store behave like two replicas: each caches what it saw. Decisions on a
 * stale cache must never stand: an append is checked by its expected revision, a refusal is re-read.
 */
import { CommandHandler } from '../../../application/command-handler';
import { catalogDecider, catalogStreamId, type CatalogCommand } from '../../../domain/dispositions/catalog';
import { organizationDecider, organizationStreamId } from '../../../domain/organizations/organization';
import { DomainError } from '../../../domain/shared/errors';
import { join } from 'node:path';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { tempDir } from '../../support/temp-dir';

const at = '2026-01-01T00:00:00.000Z';
const ctx = { organizationId: 'o1', actor: 'tester', requestId: 'r1' };
const stream = catalogStreamId('o1');
const create = (dispositionId: string, name: string): CatalogCommand => ({
  type: 'CreateDisposition',
  dispositionId,
  name,
  description: '',
  priority: 500,
  at,
});

describe('command handler', () => {
  it('appends with the expected revision and records metadata on every event', async () => {
    const store = new MemoryEventStore();
    const handler = new CommandHandler(store, () => new Date(at));
    const result = await handler.handle(catalogDecider, stream, create('d1', 'Paid'), ctx);
    expect(result.nextExpectedRevision).toBe(0);
    const [event] = await store.readStream(stream);
    expect(event!.metadata).toEqual({
      organizationId: 'o1',
      actor: 'tester',
      requestId: 'r1',
      correlationId: 'r1',
      causationId: null,
      occurredAt: at,
      schemaVersion: 1,
    });
  });

  it('a stale cache that allows a command is corrected by the append conflict', async () => {
    const store = new MemoryEventStore();
    const a = new CommandHandler(store);
    const b = new CommandHandler(store);
    await b.handle(catalogDecider, stream, create('d0', 'Other'), ctx); // b caches revision 0
    await a.handle(catalogDecider, stream, create('d1', 'Paid'), ctx); // b does not see this
    await expect(b.handle(catalogDecider, stream, create('d2', 'paid'), ctx)).rejects.toMatchObject({
      kind: 'conflict',
      message: 'A disposition with this name already exists',
    });
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['DispositionCreated', 'DispositionCreated']);
  });

  it('a stale cache that refuses a command is re-read before the refusal is answered', async () => {
    const store = new MemoryEventStore();
    const a = new CommandHandler(store);
    const b = new CommandHandler(store);
    await b.handle(catalogDecider, stream, create('d1', 'Paid'), ctx); // b caches "Paid" taken
    await a.handle(catalogDecider, stream, { type: 'DeleteDisposition', dispositionId: 'd1', at }, ctx);
    const result = await b.handle(catalogDecider, stream, create('d2', 'Paid'), ctx);
    expect(result.events.map((e) => e.type)).toEqual(['DispositionCreated']);
  });

  it('a command on a stream it never saw is decided on the stored history', async () => {
    const store = new MemoryEventStore();
    await new CommandHandler(store).handle(catalogDecider, stream, create('d1', 'Paid'), ctx);
    const fresh = new CommandHandler(store);
    const error = await fresh.handle(catalogDecider, stream, create('d2', 'Paid'), ctx).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    await fresh.handle(catalogDecider, stream, { type: 'DeleteDisposition', dispositionId: 'd1', at }, ctx);
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['DispositionCreated', 'DispositionDeleted']);
  });

  it('many concurrent commands on one stream all land, in some order, each decided on the latest state', async () => {
    const store = new MemoryEventStore();
    const handlers = [new CommandHandler(store), new CommandHandler(store), new CommandHandler(store)];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        handlers[i % 3]!.handle(catalogDecider, stream, create(`d${i}`, `Name ${i}`), ctx),
      ),
    );
    const events = await store.readStream(stream);
    expect(events).toHaveLength(30);
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('replicas that always have commands waiting take turns on a stream: no batch fails on conflicts', async () => {
    // The SQLite store: its writer thread answers appends in the order they came, as a server does.
    const dir = tempDir();
    const store = new SqliteEventStore(join(dir.path, 'events.db'));
    const org = organizationStreamId('o1');
    const handlers = [new CommandHandler(store), new CommandHandler(store), new CommandHandler(store)];
    await handlers[0]!.handle(
      organizationDecider,
      org,
      {
        type: 'RegisterOrganization',
        organizationId: 'o1',
        name: 'Acme',
        organizationType: 'collection',
        credits: 1e9,
        concurrencyLimit: 100,
        at,
      },
      ctx,
    );
    try {
      // Each handler has 16 clients, each adjusting the balance again and again for two seconds.
      const until = Date.now() + 2000;
      let adjusted = 0;
      await Promise.all(
        handlers.flatMap((handler) =>
          Array.from({ length: 16 }, async () => {
            while (Date.now() < until) {
              await handler.handle(organizationDecider, org, { type: 'AdjustCredits', amount: 1, at }, ctx);
              adjusted++;
            }
          }),
        ),
      );
      expect(await store.readStream(org)).toHaveLength(adjusted + 1);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
