/**
 * Upcasting on read: events stored at an older schema version are read in the current shape of their
 * type, at the same place; current ones as stored; newer ones not at all.
 */
import { join } from 'node:path';
import { CommandHandler } from '../../../application/command-handler';
import { EventVersions, UnknownSchemaVersionError, type Upcaster } from '../../../application/event-versions';
import type { EventData, EventStore } from '../../../application/ports/event-store';
import { eventVersions } from '../../../application/upcasters';
import { UpcastingEventStore } from '../../../application/upcasting-event-store';
import { campaignDecider, campaignStreamId } from '../../../domain/campaigns/campaign';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { testMetadata } from '../../support/events';
import { tempDir } from '../../support/temp-dir';

const event = (type: string, data: unknown, schemaVersion: number, id = `${type}-${schemaVersion}`): EventData => ({
  id,
  type,
  data,
  metadata: testMetadata({ schemaVersion }),
});

// A name split in two (1 -> 2), then the event renamed (2 -> 3): `NameGiven` is no longer written.
const upcasters: Upcaster[] = [
  {
    type: 'NameGiven',
    fromVersion: 1,
    upcast: (data, metadata) => {
      const { name } = data as { name: string };
      const [first = '', ...rest] = name.split(' ');
      return { data: { first, last: rest.join(' '), by: metadata.actor } };
    },
  },
  { type: 'NameGiven', fromVersion: 2, upcast: (data) => ({ type: 'NameSet', data }) },
];
const versions = new EventVersions({ NameGiven: 3, NameSet: 3 }, upcasters);

describe.each(['memory', 'sqlite'] as const)('upcasting event store (%s)', (kind) => {
  const dir = tempDir();
  let raw: EventStore;
  let store: UpcastingEventStore;
  beforeEach(() => {
    raw = kind === 'memory' ? new MemoryEventStore() : new SqliteEventStore(join(dir.path, `${Math.random()}.db`));
    store = new UpcastingEventStore(raw, versions);
  });
  afterEach(() => store.close());
  afterAll(() => dir.remove());

  it('reads an old event in the current shape, renamed, at the place the store holds it', async () => {
    await raw.appendToStream('a', [event('Other', { n: 1 }, 1), event('NameGiven', { name: 'Ada King Lovelace' }, 1)]);
    const [other, stored] = await raw.readStream('a');
    for (const [read] of [
      await store.readStream('a', { fromRevision: 1 }),
      await store.readAll({ after: other!.position }),
    ])
      expect(read).toEqual({
        ...stored,
        type: 'NameSet',
        data: { first: 'Ada', last: 'King Lovelace', by: 'tester' },
        metadata: { ...stored!.metadata, schemaVersion: 3 },
      });
    // What is stored stays as written.
    expect(await raw.readStream('a')).toEqual([other, stored]);
    expect(stored).toMatchObject({ type: 'NameGiven', data: { name: 'Ada King Lovelace' }, revision: 1 });
  });

  it('goes on from the version an event is at, and leaves current events as stored', async () => {
    await raw.appendToStream('a', [
      event('NameGiven', { first: 'Grace', last: 'Hopper', by: 'x' }, 2),
      event('NameSet', { first: 'Alan', last: 'Turing', by: 'y' }, 3),
      event('Other', { n: 1 }, 1),
    ]);
    const read = await store.readStream('a');
    expect(read.map((e) => [e.type, e.metadata.schemaVersion, e.data])).toEqual([
      ['NameSet', 3, { first: 'Grace', last: 'Hopper', by: 'x' }],
      ['NameSet', 3, { first: 'Alan', last: 'Turing', by: 'y' }],
      ['Other', 1, { n: 1 }],
    ]);
    expect(read.slice(1)).toEqual((await raw.readStream('a')).slice(1));
  });

  it('appends events as they are given', async () => {
    const result = await store.appendToStream('a', [event('NameGiven', { name: 'Old Shape' }, 1)]);
    expect(result).toEqual({ nextExpectedRevision: 0, position: await raw.headPosition() });
    expect(await raw.readStream('a')).toMatchObject([{ type: 'NameGiven', data: { name: 'Old Shape' } }]);
  });

  it('refuses to read an event newer than the code knows, naming it', async () => {
    await raw.appendToStream('a', [event('NameSet', { first: 'A', last: 'B', middle: 'C' }, 4, 'future-1')]);
    const refusal =
      'Event future-1 (NameSet) has schema version 4, newer than this code knows (3): ' +
      'run a version of the service that knows it';
    await expect(store.readStream('a')).rejects.toThrow(new UnknownSchemaVersionError('future-1', 'NameSet', 4, 3));
    await expect(store.readAll()).rejects.toThrow(refusal);
  });
});

describe('event versions registry', () => {
  const noop = (type: string, fromVersion: number): Upcaster => ({ type, fromVersion, upcast: (data) => ({ data }) });

  it('refuses upcasters its current versions do not reach, duplicates and gaps', () => {
    expect(() => new EventVersions({}, [noop('A', 1)])).toThrow(
      'Upcaster of A from version 1: it must start from 1 to below the current version 1',
    );
    expect(() => new EventVersions({ A: 2 }, [noop('A', 1), noop('A', 1)])).toThrow(
      'Two upcasters of A from version 1',
    );
    expect(() => new EventVersions({ A: 4 }, [noop('A', 1), noop('A', 3)])).toThrow('No upcaster of A from version 2');
    expect(() => new EventVersions({ A: 0 }, [])).toThrow('A: a schema version is an integer from 1, not 0');
  });

  it('fails on a version below the current one that no upcaster takes on', () => {
    const gapped = new EventVersions({ A: 3 }, [noop('A', 2)]);
    expect(() => gapped.upcast(event('A', {}, 1, 'old-1'))).toThrow(
      'Event old-1 (A) has schema version 1, and no upcaster takes it to the current version (3)',
    );
  });
});

describe("the service's versions: CampaignUpdated 2 holds campaign fields only", () => {
  const at = '2026-01-01T00:00:00.000Z';
  const ctx = { organizationId: 'o1', actor: 'tester', requestId: 'r1' };
  const stream = campaignStreamId('c1');
  const create = {
    type: 'CreateCampaign',
    campaignId: 'c1',
    organizationId: 'o1',
    organizationType: 'collection',
    campaignType: 'emi',
    at,
    name: 'Spring',
    description: '',
    language: null,
    agentId: null,
    dispositionGroupId: null,
    startDate: null,
    endDate: null,
  } as const;
  const update = (changes: Record<string, unknown>, schemaVersion: number, id: string) =>
    event('CampaignUpdated', { campaignId: 'c1', changes, at }, schemaVersion, id);

  it('writes each event at the current version of its type', async () => {
    const raw = new MemoryEventStore();
    const handler = new CommandHandler(new UpcastingEventStore(raw));
    await handler.handle(campaignDecider, stream, create, ctx);
    const changes = { name: 'Summer' };
    await handler.handle(campaignDecider, stream, { type: 'UpdateCampaign', organizationId: 'o1', changes, at }, ctx);
    const stored = await raw.readStream(stream);
    expect(stored.map((e) => [e.type, e.metadata.schemaVersion])).toEqual([
      ['CampaignCreated', 1],
      ['CampaignUpdated', 2],
    ]);
    expect(eventVersions.upcast(stored[1]!)).toBe(stored[1]);
  });

  it("folds a version 1 update without the fields that are no campaign's, and refuses a version 3", async () => {
    const raw = new MemoryEventStore();
    const handler = new CommandHandler(new UpcastingEventStore(raw));
    await handler.handle(campaignDecider, stream, create, ctx);
    const extras = { organizationId: 'o2', status: 'deleted', campaignType: 'lead', budget: 5000 };
    await raw.appendToStream(stream, [update({ name: 'Summer', ...extras }, 1, 'u1')]);
    const fresh = new CommandHandler(new UpcastingEventStore(raw));
    const { state, revision } = await fresh.load(campaignDecider, stream);
    expect(revision).toBe(1);
    expect(state).toEqual({
      ...campaignDecider.evolve(campaignDecider.initialState(), stored(create)),
      name: 'Summer',
    });

    await raw.appendToStream(stream, [update({ name: 'Autumn' }, 3, 'u3')]);
    await expect(fresh.load(campaignDecider, stream)).rejects.toThrow(
      'Event u3 (CampaignUpdated) has schema version 3, newer than this code knows (2)',
    );
  });
});

/** The creation event the command records. */
function stored(command: Parameters<typeof campaignDecider.decide>[0]) {
  return campaignDecider.decide(command, campaignDecider.initialState())[0]!;
}
