/**
 * The key store in a read store collection: keys made together are written together, one subject per
 * number across concurrent requests and replicas, an erasure honoured by other replicas once their
 * cache expires, and nothing but a hash of the number stored.
 */
import { KeyStoreUnavailableError } from '../../../application/ports/key-store';
import {
  BoundedCache,
  CachedKeys,
  KEYS_COLLECTION,
  ReadStoreKeys,
  type KeyDocuments,
} from '../../../application/privacy/read-store-keys';
import type { CollectionDefinition, ReadCollection, ReadStore } from '../../../application/ports/read-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';

const ORG = 'org-1';
const phone = (i: number) => `9198${String(10_000_000 + i)}`;

describe('the key store in the read store', () => {
  it('makes the keys asked for together in one write, one subject per number', async () => {
    const reads = new MemoryReadStore();
    const keys = await ReadStoreKeys.open(reads);
    const commit = jest.spyOn(reads, 'commit');
    const asked = Array.from({ length: 1000 }, (_, i) => keys.subjectKey(ORG, phone(i % 500)));
    const refs = await Promise.all(asked);
    expect(commit).toHaveBeenCalledTimes(1);
    expect(new Set(refs.map((r) => r.subjectId)).size).toBe(500);
    expect(refs[0]).toBe(refs[500]);
    expect(refs[0]!.key).toHaveLength(32);
  });

  it('stores a hash of the number, never the number', async () => {
    const reads = new MemoryReadStore();
    const keys = await ReadStoreKeys.open(reads);
    const ref = await keys.subjectKey(ORG, phone(1));
    const collection = await reads.collection<Record<string, unknown>>(KEYS_COLLECTION);
    const stored = await collection.get(ref.keyId);
    expect(stored).toMatchObject({ id: ref.subjectId, subjectId: ref.subjectId, kind: 'subject', organizationId: ORG });
    expect(stored!.lookup).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(phone(1));
  });

  it('two replicas making the same new subject at once agree on one within the cache time, and erase both', async () => {
    const reads = new MemoryReadStore();
    let now = 0;
    const [a, b] = await Promise.all([
      ReadStoreKeys.open(reads, { now: () => now }),
      ReadStoreKeys.open(reads, { now: () => now }),
    ]);
    const [fromA, fromB] = await Promise.all([a.subjectKey(ORG, phone(7)), b.subjectKey(ORG, phone(7))]);
    // Both keys stay valid: what each sealed reads back.
    expect((await a.keyOf(fromB.keyId))?.key.equals(fromB.key)).toBe(true);
    now += 5_001;
    const [laterA, laterB] = await Promise.all([a.subjectKey(ORG, phone(7)), b.subjectKey(ORG, phone(7))]);
    expect(laterA.subjectId).toBe(laterB.subjectId);
    expect([fromA.subjectId, fromB.subjectId]).toContain(laterA.subjectId);
    expect(await a.subjectOfPhone(ORG, phone(7))).toBe(laterA.subjectId);

    await a.eraseSubjects([laterA.subjectId]);
    expect(await a.keyOf(fromA.keyId)).toBeNull();
    expect(await a.keyOf(fromB.keyId)).toBeNull();
  });

  it('content keys belong to their subject, one per conversation', async () => {
    const keys = await ReadStoreKeys.open(new MemoryReadStore());
    const subject = await keys.subjectKey(ORG, phone(1));
    const [c1, again, c2] = await Promise.all([
      keys.contentKey(subject, 'call-1'),
      keys.contentKey(subject, 'call-1'),
      keys.contentKey(subject, 'call-2'),
    ]);
    expect(c1).toBe(again);
    expect(c1.keyId).not.toBe(c2.keyId);
    expect(c1.keyId.startsWith(`${subject.subjectId}.`)).toBe(true);
    expect(await keys.keyOf(c1.keyId)).toMatchObject({ subjectId: subject.subjectId });
  });

  it("erases a subject's keys, content keys included, here at once and on another replica within its cache time", async () => {
    const reads = new MemoryReadStore();
    let now = 0;
    const here = await ReadStoreKeys.open(reads, { now: () => now });
    const there = await ReadStoreKeys.open(reads, { now: () => now });
    const subject = await here.subjectKey(ORG, phone(1));
    const content = await here.contentKey(subject, 'call-1');
    expect(await there.keyOf(subject.keyId)).not.toBeNull();

    await here.eraseSubjects([subject.subjectId]);
    expect(await here.keyOf(subject.keyId)).toBeNull();
    expect(await here.keyOf(content.keyId)).toBeNull();
    expect(await here.subjectOfPhone(ORG, phone(1))).toBeNull();
    expect(await there.keyOf(subject.keyId)).not.toBeNull(); // cached
    now += 5_001;
    expect(await there.keyOf(subject.keyId)).toBeNull();

    const next = await here.subjectKey(ORG, phone(1));
    expect(next.subjectId).not.toBe(subject.subjectId);
  });

  it("erases a conversation's content key and nothing else", async () => {
    const keys = await ReadStoreKeys.open(new MemoryReadStore());
    const subject = await keys.subjectKey(ORG, phone(1));
    const content = await keys.contentKey(subject, 'call-1');
    await keys.eraseContent(['call-1']);
    expect(await keys.keyOf(content.keyId)).toBeNull();
    expect(await keys.keyOf(subject.keyId)).not.toBeNull();
    expect((await keys.contentKey(subject, 'call-1')).keyId).not.toBe(content.keyId);
  });

  it('answers KeyStoreUnavailableError when the read store fails, and works again after', async () => {
    const reads = new MemoryReadStore();
    let failing = true;
    const flaky: ReadStore = Object.assign(Object.create(reads) as ReadStore, {
      collection: async <T>(definition: CollectionDefinition): Promise<ReadCollection<T>> => {
        const real = await reads.collection<T>(definition);
        const guard =
          <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
          async (...args: A) => {
            if (failing) throw new Error('database is locked');
            return f(...args);
          };
        return { ...real, definition, find: guard(real.find.bind(real)), getStored: guard(real.getStored.bind(real)) };
      },
    });
    const keys = await ReadStoreKeys.open(flaky);
    await expect(keys.subjectKey(ORG, phone(1))).rejects.toBeInstanceOf(KeyStoreUnavailableError);
    await expect(keys.keyOf('anything')).rejects.toBeInstanceOf(KeyStoreUnavailableError);
    failing = false;
    expect((await keys.subjectKey(ORG, phone(1))).key).toHaveLength(32);
  });
});

describe('batches of keys to make', () => {
  /** A place of keys whose answers to batches wait until `answerAll`; `asked`: the size of each batch asked. */
  const heldPlace = () => {
    const asked: number[] = [];
    const held: (() => void)[] = [];
    const documents: KeyDocuments = {
      subjectKeys: (batch) => {
        asked.push(batch.length);
        const refs = batch.map(({ organizationId, handle }) => ({
          keyId: `subject-${handle}`,
          subjectId: `subject-${handle}`,
          organizationId,
          key: Buffer.alloc(32),
        }));
        return new Promise((resolve) => held.push(() => resolve(refs)));
      },
      contentKeys: async () => [],
      byIds: async () => new Map(),
      liveBy: async () => [],
      erase: async () => {},
    };
    return { documents, asked, answerAll: () => held.splice(0).forEach((answer) => answer()) };
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('are asked one at a time by default: what is asked meanwhile goes together in the next', async () => {
    const place = heldPlace();
    const keys = new CachedKeys(place.documents);
    const first = keys.subjectKey(ORG, phone(1));
    await turn();
    const later = [keys.subjectKey(ORG, phone(2)), keys.subjectKey(ORG, phone(3))];
    await turn();
    await turn();
    expect(place.asked).toEqual([1]);
    place.answerAll();
    await first;
    await turn();
    expect(place.asked).toEqual([1, 2]);
    place.answerAll();
    expect((await Promise.all(later)).map((k) => k.subjectId)).toEqual([`subject-${phone(2)}`, `subject-${phone(3)}`]);
  });

  it('are each asked at once of a place that takes several at a time, a subject asked twice once', async () => {
    const place = heldPlace();
    const keys = new CachedKeys(place.documents, Date.now, 5_000, Infinity);
    const first = keys.subjectKey(ORG, phone(1));
    await turn();
    const later = [keys.subjectKey(ORG, phone(2)), keys.subjectKey(ORG, phone(1))];
    await turn();
    expect(place.asked).toEqual([1, 1]);
    place.answerAll();
    const [again] = await Promise.all([later[1], first]);
    expect(again!.subjectId).toBe(`subject-${phone(1)}`);
    expect((await later[0]!).subjectId).toBe(`subject-${phone(2)}`);
  });
});

describe('the bounded cache of keys', () => {
  it('keeps what was read lately and forgets the rest beyond its size', () => {
    const cache = new BoundedCache<number, string>(4);
    for (const n of [1, 2]) cache.set(n, `v${n}`);
    // 1 and 2 are the old generation now; reading 1 brings it back into the young one.
    expect(cache.get(1)).toBe('v1');
    for (const n of [3, 4]) cache.set(n, `v${n}`);
    expect(cache.get(1)).toBe('v1');
    expect(cache.get(2)).toBeUndefined();
    cache.delete(1);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(4)).toBe('v4');
  });

  it('knows a key it answered without asking the store again, and an erased one as erased', async () => {
    const reads = new MemoryReadStore();
    const keys = await ReadStoreKeys.open(reads);
    const ref = await keys.subjectKey(ORG, phone(1));
    expect(keys.knownKey(ref.keyId)).toBe(ref);
    expect(keys.knownKey('not-asked')).toBeUndefined();
    await keys.eraseSubjects([ref.subjectId]);
    expect(keys.knownKey(ref.keyId)).toBeNull();
  });
});
