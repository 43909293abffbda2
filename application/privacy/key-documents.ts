/**
 * Key documents (read-store-keys.ts) and how new ones are made: shared by the places that keep them,
 * whether they make keys on the thread that asks for them (the read store) or on a thread of their own
 * (the SQLite key store's writer, infrastructure/sqlite/sqlite-key-writer.worker.ts, which keeps the
 * hashing, the ids and the random bytes of a bulk add's 10,000 keys off the thread serving requests).
 *
 * A subject key is found by `lookup`, the SHA-256 (hex) of `organizationId|digits`, never by the number
 * itself; a content key by its conversation's `stream`. Subject ids are random and time-ordered: the
 * oldest live subject of a number is the one with the smallest id.
 */
import { hash, randomBytes } from 'node:crypto';
import { timeOrderedId } from '../time-ordered-id';

const KEY_BYTES = 32;

/** A key as its store keeps it. `lookup` for a subject key, `stream` for a content key. */
export type KeyDocument = {
  id: string;
  organizationId: string;
  subjectId: string;
  kind: 'subject' | 'content';
  lookup: string | null;
  stream: string | null;
  key: Buffer;
};

/** A subject key asked for: that of the organization's subject with this number (or stream handle). */
export type SubjectAsked = { organizationId: string; handle: string };
/** A content key asked for: that of one conversation (`stream`) of a subject. */
export type ContentAsked = { organizationId: string; subjectId: string; stream: string };

/** The lookup of a subject key: the number (or stream handle) hashed with its organization. */
export const subjectLookup = (organizationId: string, handle: string): string =>
  hash('sha256', `${organizationId}|${handle}`, 'hex');

/** New random keys, drawn in one call (one system call per key is most of what making a key costs). */
export function newKeys(count: number): Buffer[] {
  const bytes = randomBytes(count * KEY_BYTES);
  return Array.from({ length: count }, (_, i) => bytes.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES));
}

/** Up to `count` new keys, drawn together the first time one is needed. */
export function keySource(count: number): () => Buffer {
  let keys: Buffer[] | null = null;
  let next = 0;
  return () => (keys ??= newKeys(count))[next++]!;
}

/** A new subject of the organization, found by `lookup`: its key's id is the subject's. */
export function newSubjectKey(organizationId: string, lookup: string, key: Buffer): KeyDocument {
  const subjectId = timeOrderedId();
  return { id: subjectId, organizationId, subjectId, kind: 'subject', lookup, stream: null, key };
}

/** A new content key of a conversation, named after its subject. */
export const newContentKey = ({ organizationId, subjectId, stream }: ContentAsked, key: Buffer): KeyDocument => ({
  id: `${subjectId}.${timeOrderedId()}`,
  organizationId,
  subjectId,
  kind: 'content',
  lookup: null,
  stream,
  key,
});

/**
 * For each value of `field`, the oldest live document with it among `live` (the smallest id), or the one
 * `make` makes for it; a value asked twice gets one document. `made`: the new documents, to be written.
 */
export function oldestOrMade(
  field: 'lookup' | 'stream',
  values: readonly string[],
  live: Iterable<KeyDocument>,
  make: (index: number) => KeyDocument,
): { docs: KeyDocument[]; made: KeyDocument[] } {
  const found = new Map<string, KeyDocument>();
  for (const doc of live) {
    const kept = found.get(doc[field]!);
    if (!kept || doc.id < kept.id) found.set(doc[field]!, doc);
  }
  const made: KeyDocument[] = [];
  const docs = values.map((value, i) => {
    let doc = found.get(value);
    if (!doc) {
      found.set(value, (doc = make(i)));
      made.push(doc);
    }
    return doc;
  });
  return { docs, made };
}
