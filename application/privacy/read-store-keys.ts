/**
 * The key store (application/ports/key-store.ts) over a place that keeps key documents: a collection
 * of the read store (`subject_keys`, `ReadStoreKeys` below), or a database of its own
 * (infrastructure/sqlite/sqlite-key-store.ts). What both share is here (`CachedKeys`): the cache, the
 * batching of requests, and the rules of making and erasing keys; each place only stores documents.
 *
 * A document per key: `{ id: keyId, organizationId, subjectId, kind, lookup, stream, key }`. A subject
 * key is found by `lookup`, the SHA-256 (hex) of `organizationId|digits`, never by the number itself;
 * a content key by its conversation's `stream`. Ids are never reused.
 *
 * Making keys fast (a bulk add of 10,000 customers asks for 10,000 subject keys at once): requests
 * made in the same turn of the event loop are answered together (`KeyDocuments.subjectKeys`, one write
 * for every key made); requests for a subject already being looked up share its answer. A place that
 * writes the batches queued behind one together (SQLite's writer thread) is sent each batch at once;
 * the others are sent the requests made while a batch is written together in the next.
 *
 * Two replicas making the same new subject at once: subject ids are random (a subject id derived from
 * the number would let anyone recover the number from the event log, which names subject ids, by trying
 * every number). A place that makes keys in one transaction (SQLite) answers both the same subject; the
 * read store cannot, so each writes its own and uses it. They converge at the next lookup of the number
 * that misses the cache (within `KEY_CACHE_TTL_MS`): every replica then takes the oldest live subject
 * of the number (the smallest id: ids are time-ordered). The keys made meanwhile stay valid (each event
 * names its key), and erasing either subject erases both (`eraseSubjects` goes by number), so a race
 * leaves nothing unerasable; only `metadata.subject` of the events sealed in that window names the
 * younger subject.
 *
 * Keys are cached (bounded) for `KEY_CACHE_TTL_MS` (5 s): an erasure on another replica is honoured
 * here within 5 seconds; one on this replica at once. A key known erased stays known erased. Any error
 * of the place the keys are kept is a `KeyStoreUnavailableError`.
 */
import type { KeyRef, KeyStore } from '../ports/key-store';
import { KeyStoreUnavailableError } from '../ports/key-store';
import type { CollectionDefinition, ReadCollection, ReadStore, StoredDocument } from '../ports/read-store';
import {
  keySource,
  newContentKey,
  newSubjectKey,
  oldestOrMade,
  subjectLookup,
  type ContentAsked,
  type KeyDocument,
  type SubjectAsked,
} from './key-documents';

/** How long a key read (or made) here is trusted before it is read again. */
export const KEY_CACHE_TTL_MS = 5_000;
const CACHE_SIZE = 100_000;

/** Where key documents are kept. Errors are the store's own; `CachedKeys` reports them as unavailability. */
export interface KeyDocuments {
  /**
   * For each subject asked, in order, the oldest live key of its number; one is made (`newSubjectKey`)
   * for a number with none, durable before this resolves.
   */
  subjectKeys(asked: readonly SubjectAsked[]): Promise<KeyRef[]>;
  /** For each conversation asked, in order, its oldest live content key; made (`newContentKey`) when it has none. */
  contentKeys(asked: readonly ContentAsked[]): Promise<KeyRef[]>;
  /** The live documents among these ids (an erased or unknown id is absent). */
  byIds(ids: readonly string[]): Promise<Map<string, KeyDocument>>;
  /** The live documents whose `field` is one of `values`. */
  liveBy(field: 'lookup' | 'stream' | 'subjectId', values: readonly string[]): Promise<KeyDocument[]>;
  /** Deletes these documents for good (no copy of their keys left behind). */
  erase(docs: readonly KeyDocument[]): Promise<void>;
}

/**
 * A map that keeps at most about `size` entries in two generations: entries are set in the young one;
 * when it is full it becomes the old one and the old one is forgotten; an entry read from the old one
 * moves to the young one. A least-recently-used order without reordering a map on every read.
 */
export class BoundedCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generation: number;

  constructor(size: number) {
    this.generation = Math.max(1, Math.ceil(size / 2));
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.set(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    this.young.set(key, value);
    if (this.young.size >= this.generation) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  deleteWhere(test: (value: V) => boolean): void {
    for (const generation of [this.young, this.old])
      for (const [key, value] of generation) if (test(value)) generation.delete(key);
  }
}

/**
 * A `BoundedCache` under two keys (an organization, then a number of it), kept apart rather than joined:
 * a joined key is a new string at every lookup, which the engine copies flat and hashes whole each
 * time (about 0.5 µs here, several times a lookup of the two parts). Sized by the entries of all the
 * first keys together.
 */
export class BoundedPairCache<V> {
  private young = new Map<string, Map<string, V>>();
  private old = new Map<string, Map<string, V>>();
  private youngEntries = 0;
  private readonly generation: number;

  constructor(size: number) {
    this.generation = Math.max(1, Math.ceil(size / 2));
  }

  get(first: string, second: string): V | undefined {
    const value = this.young.get(first)?.get(second);
    if (value !== undefined) return value;
    const older = this.old.get(first);
    const old = older?.get(second);
    if (old !== undefined) {
      older!.delete(second);
      this.set(first, second, old);
    }
    return old;
  }

  set(first: string, second: string, value: V): void {
    let entries = this.young.get(first);
    if (entries === undefined) this.young.set(first, (entries = new Map()));
    const before = entries.size;
    entries.set(second, value);
    this.youngEntries += entries.size - before;
    if (this.youngEntries >= this.generation) {
      this.old = this.young;
      this.young = new Map();
      this.youngEntries = 0;
    }
  }

  deleteWhere(test: (value: V) => boolean): void {
    for (const generation of [this.young, this.old])
      for (const entries of generation.values())
        for (const [second, value] of entries)
          if (test(value)) {
            entries.delete(second);
            if (generation === this.young) this.youngEntries--;
          }
  }
}

/** Requests waiting to be sent together: their keys, what each asks, and how to answer each. */
type Batch<K, Q, V> = { keys: K[]; queries: Q[]; settle: { resolve: (v: V) => void; reject: (e: unknown) => void }[] };
const emptyBatch = <K, Q, V>(): Batch<K, Q, V> => ({ keys: [], queries: [], settle: [] });

/**
 * Requests answered together by `answer` (in the order asked): the requests of one turn of the event
 * loop go in one batch. At most `batchesAtOnce` batches are being answered at a time; the requests
 * made meanwhile go together in the next (a bulk add's 10,000 keys take a few writes, not one per slice
 * of its appends). A request for a key already asked (and not answered yet) shares that answer.
 */
export class Coalescer<K, Q, V> {
  private waiting: Batch<K, Q, V> = emptyBatch();
  private readonly inFlight = new Map<K, Promise<V>>();
  private answering = 0;
  private scheduled = false;

  constructor(
    private readonly answer: (keys: K[], queries: Q[]) => Promise<V[]>,
    private readonly batchesAtOnce: number = 1,
  ) {}

  request(key: K, query: Q): Promise<V> {
    const asked = this.inFlight.get(key);
    if (asked) return asked;
    const waiting = this.waiting;
    const promise = new Promise<V>((resolve, reject) => waiting.settle.push({ resolve, reject }));
    waiting.keys.push(key);
    waiting.queries.push(query);
    this.inFlight.set(key, promise);
    this.flushSoon();
    return promise;
  }

  /** Sends what waits on the next turn of the event loop, unless enough batches are being answered. */
  private flushSoon(): void {
    if (this.scheduled || this.waiting.keys.length === 0 || this.answering >= this.batchesAtOnce) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const { keys, queries, settle } = this.waiting;
    this.waiting = emptyBatch();
    this.answering++;
    try {
      const answers = await this.answer(keys, queries);
      for (let i = 0; i < keys.length; i++) {
        this.inFlight.delete(keys[i]!);
        settle[i]!.resolve(answers[i]!);
      }
    } catch (error) {
      for (let i = 0; i < keys.length; i++) {
        this.inFlight.delete(keys[i]!);
        settle[i]!.reject(error);
      }
    } finally {
      this.answering--;
      this.flushSoon();
    }
  }
}

type Timed<T> = { value: T; until: number };

/** The key store over a place that keeps key documents: cached, requests batched, failures as unavailability. */
export class CachedKeys implements KeyStore {
  private readonly keys = new BoundedCache<string, Timed<KeyRef | null>>(CACHE_SIZE);
  /** By organization, then handle (hashed into a lookup only on a miss). */
  private readonly subjects = new BoundedPairCache<Timed<KeyRef>>(CACHE_SIZE);
  private readonly conversations = new BoundedCache<string, Timed<KeyRef>>(CACHE_SIZE);
  private readonly subjectRequests: Coalescer<string, SubjectAsked, KeyRef>;
  private readonly contentRequests: Coalescer<string, ContentAsked, KeyRef>;
  private readonly keyRequests = new Coalescer<string, null, KeyRef | null>((ids) => this.storedKeys(ids));
  /** Moves whenever a key is found erased here (`erasures`). */
  private erased = 0;

  /**
   * `batchesAtOnce`: how many batches of keys to make may be asked of `documents` at a time (a place
   * that writes those queued behind one together takes each at once, and answers the first sooner).
   */
  constructor(
    private readonly documents: KeyDocuments,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = KEY_CACHE_TTL_MS,
    batchesAtOnce = 1,
  ) {
    this.subjectRequests = new Coalescer((_handles, asked) => this.subjectKeys(asked), batchesAtOnce);
    this.contentRequests = new Coalescer((streams, asked) => this.contentKeys(streams, asked), batchesAtOnce);
  }

  subjectKey(organizationId: string, phoneDigits: string): Promise<KeyRef> {
    const cached = this.knownSubjectKey(organizationId, phoneDigits);
    if (cached) return Promise.resolve(cached);
    return this.subjectRequests.request(`${organizationId}|${phoneDigits}`, { organizationId, handle: phoneDigits });
  }

  /** The subject key cached for the organization's handle, while its time is not up. */
  knownSubjectKey(organizationId: string, phoneDigits: string): KeyRef | undefined {
    const cached = this.subjects.get(organizationId, phoneDigits);
    return cached && cached.until > this.now() ? cached.value : undefined;
  }

  contentKey(subject: { subjectId: string; organizationId: string }, streamId: string): Promise<KeyRef> {
    const cached = this.conversations.get(streamId);
    if (cached && cached.until > this.now()) return Promise.resolve(cached.value);
    return this.contentRequests.request(streamId, {
      organizationId: subject.organizationId,
      subjectId: subject.subjectId,
      stream: streamId,
    });
  }

  keyOf(keyId: string): Promise<KeyRef | null> {
    const known = this.knownKey(keyId);
    return known === undefined ? this.keyRequests.request(keyId, null) : Promise.resolve(known);
  }

  knownKey(keyId: string): KeyRef | null | undefined {
    return this.known(keyId)?.value;
  }

  known(keyId: string): Timed<KeyRef | null> | undefined {
    const cached = this.keys.get(keyId);
    // A key known erased stays erased (no id is used twice): its entry's time is never up.
    if (cached && (cached.value === null || cached.until > this.now())) return cached;
    return undefined;
  }

  erasures(): number {
    return this.erased;
  }

  keyClock(): number {
    return this.now();
  }

  async subjectOfPhone(organizationId: string, phoneDigits: string): Promise<string | null> {
    const found = await this.unavailableOnError(() =>
      this.documents.liveBy('lookup', [subjectLookup(organizationId, phoneDigits)]),
    );
    return oldest(found.filter((d) => d.kind === 'subject'))?.subjectId ?? null;
  }

  async eraseSubjects(subjectIds: readonly string[]): Promise<void> {
    if (subjectIds.length === 0) return;
    const { erased, docs } = await this.unavailableOnError(async () => {
      const named = await this.documents.liveBy('subjectId', subjectIds);
      const lookups = [...new Set(named.flatMap((d) => (d.kind === 'subject' && d.lookup ? [d.lookup] : [])))];
      const siblings = await this.documents.liveBy('lookup', lookups);
      const subjects = new Set([...subjectIds, ...siblings.map((d) => d.subjectId)]);
      const found = await this.documents.liveBy('subjectId', [...subjects]);
      await this.documents.erase(found);
      return { erased: subjects, docs: found };
    });
    const gone = (entry: Timed<KeyRef | null>) => entry.value !== null && erased.has(entry.value.subjectId);
    this.subjects.deleteWhere(gone);
    this.conversations.deleteWhere(gone);
    this.keys.deleteWhere(gone);
    for (const id of [...erased, ...docs.map((d) => d.id)]) this.keys.set(id, { value: null, until: Infinity });
    this.erased++;
  }

  async eraseContent(streamIds: readonly string[]): Promise<void> {
    if (streamIds.length === 0) return;
    const docs = await this.unavailableOnError(async () => {
      const found = await this.documents.liveBy('stream', streamIds);
      await this.documents.erase(found);
      return found;
    });
    for (const stream of streamIds) this.conversations.delete(stream);
    for (const doc of docs) this.keys.set(doc.id, { value: null, until: Infinity });
    this.erased++;
  }

  private async subjectKeys(asked: SubjectAsked[]): Promise<KeyRef[]> {
    const refs = await this.unavailableOnError(() => this.documents.subjectKeys(asked));
    const until = this.now() + this.ttlMs;
    for (let i = 0; i < refs.length; i++)
      this.subjects.set(asked[i]!.organizationId, asked[i]!.handle, this.remember(refs[i]!, until));
    return refs;
  }

  private async contentKeys(streams: string[], asked: ContentAsked[]): Promise<KeyRef[]> {
    const refs = await this.unavailableOnError(() => this.documents.contentKeys(asked));
    const until = this.now() + this.ttlMs;
    for (let i = 0; i < refs.length; i++) this.conversations.set(streams[i]!, this.remember(refs[i]!, until));
    return refs;
  }

  private async storedKeys(ids: string[]): Promise<(KeyRef | null)[]> {
    const stored = await this.unavailableOnError(() => this.documents.byIds(ids));
    const until = this.now() + this.ttlMs;
    return ids.map((id) => {
      const doc = stored.get(id);
      if (doc) return this.remember(refOf(doc), until).value;
      // Erased, or never made: either way nothing it sealed can be read.
      this.keys.set(id, { value: null, until: Infinity });
      this.erased++;
      return null;
    });
  }

  /** Caches a key by id; the entry answered is shared by the caches by number and by conversation. */
  private remember(ref: KeyRef, until: number): Timed<KeyRef> {
    const remembered = { value: ref, until };
    this.keys.set(ref.keyId, remembered);
    return remembered;
  }

  private async unavailableOnError<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw error instanceof KeyStoreUnavailableError ? error : new KeyStoreUnavailableError(error);
    }
  }
}

/** What the key store answers of a key document. */
export const refOf = (doc: KeyDocument): KeyRef => ({
  keyId: doc.id,
  subjectId: doc.subjectId,
  organizationId: doc.organizationId,
  key: doc.key,
});

const oldest = (docs: readonly KeyDocument[]): KeyDocument | undefined =>
  docs.reduce<KeyDocument | undefined>((kept, doc) => (!kept || doc.id < kept.id ? doc : kept), undefined);

export const KEYS_COLLECTION: CollectionDefinition = {
  name: 'subject_keys',
  fields: { lookup: 'string', subjectId: 'string', stream: 'string' },
};
const CHECKPOINT = 'subject-keys';
/** Values per `in` query (SQLite binds each as a parameter). */
const IN_CHUNK = 500;

type StoredKey = Omit<KeyDocument, 'key'> & { key: string };

/**
 * Key documents in a collection of the read store (`subject_keys`), through the read-store port, as
 * the provider secrets are (application/providers/read-store-secrets.ts): it works on every read store,
 * and the collection is no read model, so projection rebuilds and verification neither wipe nor compare
 * it. Its writes go through `commit` under a checkpoint name of their own that never moves (-1). A key
 * is written once (position 0) and erased once: a tombstone (position 1) that no late write of the key
 * can replace.
 */
class ReadStoreKeyDocuments implements KeyDocuments {
  constructor(
    private readonly reads: ReadStore,
    private readonly collection: ReadCollection<StoredKey>,
  ) {}

  subjectKeys(asked: readonly SubjectAsked[]): Promise<KeyRef[]> {
    const lookups = asked.map(({ organizationId, handle }) => subjectLookup(organizationId, handle));
    const fresh = keySource(asked.length);
    return this.findOrMake('lookup', lookups, (i) => newSubjectKey(asked[i]!.organizationId, lookups[i]!, fresh()));
  }

  contentKeys(asked: readonly ContentAsked[]): Promise<KeyRef[]> {
    const fresh = keySource(asked.length);
    return this.findOrMake(
      'stream',
      asked.map(({ stream }) => stream),
      (i) => newContentKey(asked[i]!, fresh()),
    );
  }

  /** For each value of `field`, the oldest live document with it, or the one `make` makes (all written in one commit). */
  private async findOrMake(
    field: 'lookup' | 'stream',
    values: readonly string[],
    make: (index: number) => KeyDocument,
  ): Promise<KeyRef[]> {
    const { docs, made } = oldestOrMade(field, values, await this.liveBy(field, values), make);
    if (made.length > 0)
      await this.commit(
        made.map((doc) => ({ id: doc.id, doc: { ...doc, key: doc.key.toString('base64') }, position: 0, version: 1 })),
      );
    return docs.map(refOf);
  }

  async byIds(ids: readonly string[]): Promise<Map<string, KeyDocument>> {
    const found = new Map<string, KeyDocument>();
    for (let i = 0; i < ids.length; i += IN_CHUNK)
      for (const [id, stored] of await this.collection.getStored(ids.slice(i, i + IN_CHUNK)))
        if (stored.doc) found.set(id, fromStored(stored.doc));
    return found;
  }

  async liveBy(field: 'lookup' | 'stream' | 'subjectId', values: readonly string[]): Promise<KeyDocument[]> {
    const docs: KeyDocument[] = [];
    for (let i = 0; i < values.length; i += IN_CHUNK) {
      const chunk = values.slice(i, i + IN_CHUNK);
      for (const doc of await this.collection.find({ where: { [field]: { in: chunk } } })) docs.push(fromStored(doc));
    }
    return docs;
  }

  async erase(docs: readonly KeyDocument[]): Promise<void> {
    if (docs.length === 0) return;
    await this.commit(docs.map((doc) => ({ id: doc.id, doc: null, position: 1, version: 2 })));
  }

  private commit(documents: readonly StoredDocument<StoredKey>[]): Promise<void> {
    return this.reads.commit({
      projection: CHECKPOINT,
      checkpoint: -1,
      writes: documents.map((document) => ({ collection: KEYS_COLLECTION.name, document })),
    });
  }
}

const fromStored = (doc: StoredKey): KeyDocument => ({ ...doc, key: Buffer.from(doc.key, 'base64') });

/**
 * Moves the live keys of the read store's collection into another key store (`adopt`, durable), then
 * deletes them there and compacts the read store, so no key stays in its files: what a deployment on
 * SQLite, whose keys were kept in the read store before they had a file of their own, does once on
 * starting. Idempotent (a move cut short is finished the next time). Answers how many keys moved.
 */
export async function moveKeysOutOfReadStore(
  reads: ReadStore,
  adopt: (docs: readonly KeyDocument[]) => Promise<void>,
): Promise<number> {
  const collection = await reads.collection<StoredKey>(KEYS_COLLECTION);
  const stored = new ReadStoreKeyDocuments(reads, collection);
  let moved = 0;
  for (let after: string | null = null; ;) {
    const page = await collection.scan(after, IN_CHUNK);
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    const live = page.flatMap((document) => (document.doc ? [fromStored(document.doc)] : []));
    if (live.length === 0) continue;
    await adopt(live);
    await stored.erase(live);
    moved += live.length;
  }
  if (moved > 0) await reads.compact?.();
  return moved;
}

/** The key store in a collection of the read store (the memory and MongoDB read stores keep it there). */
export class ReadStoreKeys extends CachedKeys {
  static async open(reads: ReadStore, options: { now?: () => number; ttlMs?: number } = {}): Promise<ReadStoreKeys> {
    let collection: ReadCollection<StoredKey>;
    try {
      collection = await reads.collection<StoredKey>(KEYS_COLLECTION);
    } catch (error) {
      throw new KeyStoreUnavailableError(error);
    }
    return new ReadStoreKeys(new ReadStoreKeyDocuments(reads, collection), options.now, options.ttlMs);
  }
}

/**
 * A key store opened on first use (the admin command line opens its read store only when a command
 * needs it); a failure to open is the key store being unavailable, and the next use tries again.
 */
export function keyStoreOpenedOnUse(open: () => Promise<KeyStore>): KeyStore {
  let opened: Promise<KeyStore> | null = null;
  const store = () =>
    (opened ??= open().catch((error: unknown) => {
      opened = null;
      throw error instanceof KeyStoreUnavailableError ? error : new KeyStoreUnavailableError(error);
    }));
  return {
    subjectKey: async (organizationId, digits) => (await store()).subjectKey(organizationId, digits),
    contentKey: async (subject, streamId) => (await store()).contentKey(subject, streamId),
    keyOf: async (keyId) => (await store()).keyOf(keyId),
    subjectOfPhone: async (organizationId, digits) => (await store()).subjectOfPhone(organizationId, digits),
    eraseSubjects: async (ids) => (await store()).eraseSubjects(ids),
    eraseContent: async (streams) => (await store()).eraseContent(streams),
  };
}
