/**
 * The key store of sealed personal data unavailable for a moment, over the real service on SQLite, for
 * both places keys are kept: the key store's own file (`keys.db`, what READ_STORE=sqlite uses), and a
 * collection of the read store (`subject_keys`, what the other read stores use). Meanwhile a customer
 * added through the API is refused with 503 and nothing of it is written; a customer another process
 * added (whose key this one has not cached) waits outside the read models rather than be shown wrongly.
 * Once the key store answers again, both work, and nothing reads as erased.
 */
import { join } from 'node:path';
import { CommandHandler } from '../../../application/command-handler';
import { KeyStoreUnavailableError, type KeyStore } from '../../../application/ports/key-store';
import type {
  CollectionDefinition,
  ProjectionCommit,
  ReadCollection,
  ReadStore,
} from '../../../application/ports/read-store';
import { PersonalDataEventStore } from '../../../application/privacy/personal-data-event-store';
import { KEYS_COLLECTION, ReadStoreKeys } from '../../../application/privacy/read-store-keys';
import { customerDecider, customerStreamId } from '../../../domain/customers/customer';
import { ERASED } from '../../../domain/privacy/erased';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { SqliteKeyStore } from '../../../infrastructure/sqlite/sqlite-key-store';
import { SqliteReadStore } from '../../../infrastructure/sqlite/sqlite-read-store';
import type { Overrides } from '../../../api/composition';
import { personRecord } from '../../support/privacy';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { eventually, sleep } from '../webhooks/support';

jest.setTimeout(120_000);

/** The real SQLite read store, whose key collection fails while `failing` (the error a locked file gives). */
class KeyCollectionOutage implements ReadStore {
  failing = false;
  constructor(readonly inner: ReadStore) {}
  get leases() {
    return this.inner.leases;
  }
  get generations() {
    return this.inner.generations;
  }

  private check(): void {
    if (this.failing) throw Object.assign(new Error('the key collection is down'), { code: 'EKEYS' });
  }

  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    const real = await this.inner.collection<T>(definition);
    if (definition.name !== KEYS_COLLECTION.name) return real;
    const guarded =
      <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        this.check();
        return read(...args);
      };
    return {
      definition: real.definition,
      get: guarded((id) => real.get(id)),
      getStored: guarded((ids) => real.getStored(ids)),
      scan: guarded((after, limit) => real.scan(after, limit)),
      find: guarded((query) => real.find(query)),
      count: guarded((query) => real.count(query)),
    };
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    if (batch.writes.some((w) => w.collection === KEYS_COLLECTION.name)) this.check();
    return this.inner.commit(batch);
  }
  checkpoint(projection: string) {
    return this.inner.checkpoint(projection);
  }
  checkpoints(projections: readonly string[]) {
    return this.inner.checkpoints(projections);
  }
  reset(projection: string, collections: readonly string[]) {
    return this.inner.reset(projection, collections);
  }
  close() {
    return this.inner.close();
  }
}

/**
 * The real SQLite key store, failing as its file does when another process holds it (SQLITE_BUSY:
 * tests/contract/key-store.sqlite.test.ts shows the store itself answering so) while `failing`; what
 * it has cached it still knows.
 */
class KeyFileOutage implements KeyStore {
  failing = false;
  constructor(readonly inner: SqliteKeyStore) {}
  private guard<R>(work: () => Promise<R>): Promise<R> {
    if (this.failing) return Promise.reject(new KeyStoreUnavailableError(new Error('database is locked')));
    return work();
  }
  subjectKey(organizationId: string, digits: string) {
    return this.guard(() => this.inner.subjectKey(organizationId, digits));
  }
  contentKey(subject: { subjectId: string; organizationId: string }, streamId: string) {
    return this.guard(() => this.inner.contentKey(subject, streamId));
  }
  keyOf(keyId: string) {
    const known = this.inner.knownKey(keyId);
    return known === undefined ? this.guard(() => this.inner.keyOf(keyId)) : Promise.resolve(known);
  }
  known(keyId: string) {
    return this.inner.known(keyId);
  }
  subjectOfPhone(organizationId: string, digits: string) {
    return this.guard(() => this.inner.subjectOfPhone(organizationId, digits));
  }
  eraseSubjects(ids: readonly string[]) {
    return this.guard(() => this.inner.eraseSubjects(ids));
  }
  eraseContent(streams: readonly string[]) {
    return this.guard(() => this.inner.eraseContent(streams));
  }
}

/** Where the keys are kept: the service's overrides, the switch of the outage, and another process's keys. */
type Keeping = {
  overrides: Overrides;
  fail: (failing: boolean) => void;
  otherProcess: () => Promise<{ keys: KeyStore; close: () => Promise<void> }>;
  close: () => Promise<void>;
};

const keepings: [string, (dir: string) => Promise<Keeping>][] = [
  [
    'in its own SQLite file',
    async (dir) => {
      const file = join(dir, 'keys.db');
      const own = SqliteKeyStore.open(file);
      const keys = new KeyFileOutage(own);
      return {
        overrides: { keys },
        fail: (failing) => void (keys.failing = failing),
        otherProcess: async () => {
          const other = SqliteKeyStore.open(file);
          return { keys: other, close: () => other.close() };
        },
        close: () => own.close(),
      };
    },
  ],
  [
    'in a collection of the read store',
    async (dir) => {
      const reads = new KeyCollectionOutage(new SqliteReadStore(join(dir, 'read.db')));
      return {
        overrides: { reads, keys: await ReadStoreKeys.open(reads) },
        fail: (failing) => void (reads.failing = failing),
        otherProcess: async () => {
          const otherReads = new SqliteReadStore(join(dir, 'read.db'));
          return { keys: await ReadStoreKeys.open(otherReads), close: () => otherReads.close() };
        },
        close: async () => undefined,
      };
    },
  ],
];

const record = (loanId: string, first: string, phone: string) =>
  personRecord({ loanId, first, last: 'Ormerod', phone });

describe.each(keepings)('the key store briefly unavailable, %s', (_, keep) => {
  const dir = tempDir();
  let keeping: Keeping;
  let t: TestService;
  let org: { id: string; token: string };
  let campaignId: string;
  const api = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: org.token, body });
  /** The campaign's customers as the API lists them: each one's record. */
  const customers = async () =>
    (
      (await api('GET', `/campaigns/${campaignId}/customers?limit=100`)).body.data as {
        data: Record<string, unknown>;
      }[]
    ).map((c) => c.data);

  beforeAll(async () => {
    keeping = await keep(dir.path);
    t = await startTestService({
      store: 'sqlite',
      env: { DATA_DIR: dir.path, READ_YOUR_WRITES_TIMEOUT_MS: '300' },
      overrides: { ...keeping.overrides, siblings: null },
    });
    org = await t.newOrganization('collection');
    campaignId = (await api('POST', '/campaigns/create', { name: 'Outage', campaignType: 'emi' })).body.data.id;
    expect(
      (await api('POST', '/customers/add', { campaignId, data: record('LN-1', 'Ambrose', '+919800000001') })).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await t.stop();
    await keeping.close();
    dir.remove();
  });

  it('refuses an add with 503 and writes nothing, holds back what it cannot open, then recovers with everything', async () => {
    // Another process, with keys of its own, adds a customer this process has no key cached for.
    const other = await keeping.otherProcess();
    const otherEvents = new PersonalDataEventStore(new SqliteEventStore(join(dir.path, 'events.db')), other.keys);
    try {
      await outage(otherEvents);
    } finally {
      keeping.fail(false);
      await otherEvents.close();
      await other.close();
    }
  });

  async function outage(otherEvents: PersonalDataEventStore) {
    keeping.fail(true);
    const refused = await api('POST', '/customers/add', {
      campaignId,
      data: record('LN-2', 'Bathsheba', '+919800000002'),
    });
    expect(refused.status).toBe(503);
    await new CommandHandler(otherEvents, () => new Date()).handle(
      customerDecider,
      customerStreamId(campaignId, 'LN-3'),
      {
        type: 'AddCustomer',
        campaignId,
        customerId: 'LN-3',
        organizationId: org.id,
        organizationType: 'collection',
        record: record('LN-3', 'Cornelius', '+919800000003'),
        at: new Date().toISOString(),
      },
      { organizationId: org.id, actor: 'another-process', requestId: 'r-3' },
    );

    // Nothing of the refused add was written; the other process's customer waits outside the read models.
    expect((await api('GET', `/audit/streams/customer-${campaignId}-LN-2`)).status).toBe(404);
    await sleep(1500);
    // The read models cannot include the event they cannot open: a read is refused, not answered without it.
    const during = await api('GET', `/campaigns/${campaignId}/customers?limit=100`);
    expect([during.status, during.headers.get('retry-after')]).toEqual([503, expect.stringMatching(/^\d+$/)]);
    expect(during.text).not.toContain(ERASED);

    keeping.fail(false);
    const after = await eventually(
      async () => {
        const list = await customers();
        return list.length === 2 ? list : undefined;
      },
      30_000,
      'the held-back customer',
    );
    expect(after.map((c) => [c.loan_id, c.first_name]).sort()).toEqual([
      ['LN-1', 'Ambrose'],
      ['LN-3', 'Cornelius'],
    ]);
    expect(
      (await api('POST', '/customers/add', { campaignId, data: record('LN-2', 'Bathsheba', '+919800000002') })).status,
    ).toBe(201);
    expect((await customers()).map((c) => c.first_name).sort()).toEqual(['Ambrose', 'Bathsheba', 'Cornelius']);
  }
});
