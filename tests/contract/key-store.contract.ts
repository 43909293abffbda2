/**
 * The behaviour every key store (application/ports/key-store.ts) must have: the SQLite one of its own
 * file, and the one in a collection of each read store (memory, MongoDB).
 */
import type { KeyStore } from '../../application/ports/key-store';
import { KEY_CACHE_TTL_MS } from '../../application/privacy/read-store-keys';

/**
 * `open` answers a key store over the fixture's storage: each call another replica (or a restart) on
 * the same keys, with its own cache, reading the clock it is given.
 */
export type KeyStoreFixture = {
  open: (options: { now: () => number }) => Promise<KeyStore>;
  cleanup: () => Promise<void>;
};

const ORG = 'org-1';
const phone = (i: number) => `9198${String(10_000_000 + i)}`;

export function keyStoreContract(name: string, setUp: () => Promise<KeyStoreFixture>): void {
  describe(`key store contract: ${name}`, () => {
    let fixture: KeyStoreFixture;
    let now: number;
    const open = () => fixture.open({ now: () => now });
    const later = () => (now += KEY_CACHE_TTL_MS + 1);

    beforeEach(async () => {
      now = 1_000_000;
      fixture = await setUp();
    });
    afterEach(() => fixture.cleanup());

    it('answers one subject per number to requests made together, its key 32 bytes, its id the subject', async () => {
      const keys = await open();
      const refs = await Promise.all(Array.from({ length: 1000 }, (_, i) => keys.subjectKey(ORG, phone(i % 500))));
      expect(new Set(refs.map((r) => r.subjectId)).size).toBe(500);
      expect(refs[0]!.subjectId).toBe(refs[500]!.subjectId);
      expect(refs[0]!.key.equals(refs[500]!.key)).toBe(true);
      expect(refs[0]!.key).toHaveLength(32);
      expect(refs[0]!.keyId).toBe(refs[0]!.subjectId);
      expect(refs[0]!.organizationId).toBe(ORG);
      expect((await keys.subjectKey(ORG, phone(0))).subjectId).toBe(refs[0]!.subjectId);
    });

    it('keeps the keys it answered: another replica reads them, and finds the subject by its number', async () => {
      const here = await open();
      const subject = await here.subjectKey(ORG, phone(1));
      const content = await here.contentKey(subject, 'call-1');
      const there = await open();
      expect((await there.keyOf(subject.keyId))?.key.equals(subject.key)).toBe(true);
      expect((await there.keyOf(content.keyId))?.key.equals(content.key)).toBe(true);
      expect((await there.subjectKey(ORG, phone(1))).subjectId).toBe(subject.subjectId);
      expect(await there.subjectOfPhone(ORG, phone(1))).toBe(subject.subjectId);
      expect(await there.subjectOfPhone('org-2', phone(1))).toBeNull();
      expect(await there.keyOf('never-made')).toBeNull();
    });

    it('makes one content key per conversation, named after its subject', async () => {
      const keys = await open();
      const subject = await keys.subjectKey(ORG, phone(1));
      const [c1, again, c2] = await Promise.all([
        keys.contentKey(subject, 'call-1'),
        keys.contentKey(subject, 'call-1'),
        keys.contentKey(subject, 'call-2'),
      ]);
      expect(c1.keyId).toBe(again.keyId);
      expect(c1.keyId).not.toBe(c2.keyId);
      expect(c1.keyId.startsWith(`${subject.subjectId}.`)).toBe(true);
      expect(c1.key.equals(subject.key)).toBe(false);
      expect(await keys.keyOf(c1.keyId)).toMatchObject({ subjectId: subject.subjectId, organizationId: ORG });
    });

    it("erases a subject's keys for good: here at once, on another replica within its cache time", async () => {
      const here = await open();
      const there = await open();
      const subject = await here.subjectKey(ORG, phone(1));
      const content = await here.contentKey(subject, 'call-1');
      const other = await here.subjectKey(ORG, phone(2));
      expect(await there.keyOf(subject.keyId)).not.toBeNull();

      await here.eraseSubjects([subject.subjectId]);
      await here.eraseSubjects([subject.subjectId]);
      expect(await here.keyOf(subject.keyId)).toBeNull();
      expect(await here.keyOf(content.keyId)).toBeNull();
      expect(await here.subjectOfPhone(ORG, phone(1))).toBeNull();
      expect(await here.keyOf(other.keyId)).not.toBeNull();
      later();
      expect(await there.keyOf(subject.keyId)).toBeNull();
      expect(await there.keyOf(content.keyId)).toBeNull();
      expect(await (await open()).keyOf(content.keyId)).toBeNull();

      // The number is a new subject from then on.
      const next = await here.subjectKey(ORG, phone(1));
      expect(next.subjectId).not.toBe(subject.subjectId);
      expect(await there.subjectOfPhone(ORG, phone(1))).toBe(next.subjectId);
    });

    it('two replicas making the same new subject at once agree on one within the cache time, and erase both', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const [fromA, fromB] = await Promise.all([a.subjectKey(ORG, phone(7)), b.subjectKey(ORG, phone(7))]);
      // Whatever each answered stays valid: what each sealed reads back.
      expect((await a.keyOf(fromB.keyId))?.key.equals(fromB.key)).toBe(true);
      later();
      const [laterA, laterB] = await Promise.all([a.subjectKey(ORG, phone(7)), b.subjectKey(ORG, phone(7))]);
      expect(laterA.subjectId).toBe(laterB.subjectId);
      expect([fromA.subjectId, fromB.subjectId]).toContain(laterA.subjectId);

      await b.eraseSubjects([laterA.subjectId]);
      expect(await b.keyOf(fromA.keyId)).toBeNull();
      expect(await b.keyOf(fromB.keyId)).toBeNull();
    });

    it("erases a conversation's content key and nothing else", async () => {
      const keys = await open();
      const subject = await keys.subjectKey(ORG, phone(1));
      const content = await keys.contentKey(subject, 'call-1');
      const kept = await keys.contentKey(subject, 'call-2');
      await keys.eraseContent(['call-1', 'call-9']);
      await keys.eraseContent(['call-1']);
      expect(await keys.keyOf(content.keyId)).toBeNull();
      expect(await keys.keyOf(subject.keyId)).not.toBeNull();
      expect(await keys.keyOf(kept.keyId)).not.toBeNull();
      expect(await (await open()).keyOf(content.keyId)).toBeNull();
      expect((await keys.contentKey(subject, 'call-1')).keyId).not.toBe(content.keyId);
    });
  });
}
