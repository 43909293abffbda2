/**
 * The keys personal data is sealed with (docs/privacy.md), kept outside the event log (in a SQLite file
 * of their own beside the SQLite read store, infrastructure/sqlite/sqlite-key-store.ts; in a collection
 * of the other read stores, application/privacy/read-store-keys.ts; a cloud KMS can implement this port
 * instead). Every adapter passes tests/contract/key-store.contract.ts. A data subject is a person an
 * organization holds data about, known by their phone number (its digits).
 *
 * - A subject key seals who the subject is: the customer record's personal fields, the names and
 *   numbers in call and chat events.
 * - A content key, one per conversation (a call or chat stream) of a subject, seals what was said:
 *   transcripts, summaries, extracted data, chat messages. Retention deletes content keys alone.
 *
 * Deleting a key leaves what it sealed unreadable for good, without touching the event log: erasing a
 * subject deletes its subject key and all its content keys.
 *
 * Ids: a subject's id is random (never derived from its number, which a hash would let anyone recover
 * from the log by trying every number); its subject key's id is the subject id, and a content key's id
 * is `{subjectId}.{suffix}`, so the event log names the subject of every sealed field (`subjectOfKeyId`)
 * even once its keys are gone.
 */

/** `key`: 32 bytes (AES-256). */
export type KeyRef = { keyId: string; subjectId: string; organizationId: string; key: Buffer };

/** The subject a key belongs to, from its id alone (see the ids above). */
export const subjectOfKeyId = (keyId: string): string => {
  const dot = keyId.indexOf('.');
  return dot < 0 ? keyId : keyId.slice(0, dot);
};

/** The key store did not answer (down, timed out): nothing may be read or written as if a key were gone. */
export class KeyStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The key store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'KeyStoreUnavailableError';
  }
}

export interface KeyStore {
  /**
   * The subject key of the organization's subject with this phone number (digits only; or
   * `stream:{streamId}` for a conversation with no number, domain/privacy/personal-fields.ts), made
   * when there is none (or when that subject was erased: a new subject). Concurrent calls for one
   * subject answer the same key; `keyId` is the subject's id. Resolves only once a key it made is
   * durable in the key store: an event is never sealed with a key that could be lost.
   */
  subjectKey(organizationId: string, phoneDigits: string): Promise<KeyRef>;
  /**
   * What `subjectKey` would answer from what this process knows already (its cache), without a promise;
   * `undefined` when it would have to ask the store. Lets an append of one event seal it at once.
   */
  knownSubjectKey?(organizationId: string, phoneDigits: string): KeyRef | undefined;
  /** The content key of one conversation (`streamId`) of a subject, made when there is none. */
  contentKey(subject: { subjectId: string; organizationId: string }, streamId: string): Promise<KeyRef>;
  /** A key by id; null when it was erased (or never existed). */
  keyOf(keyId: string): Promise<KeyRef | null>;
  /**
   * What `keyOf` would answer from what this process knows already (its cache), without asking the
   * store, and until when (on `keyClock`) it answers so, unless `erasures` moves first (an erased key:
   * for ever); `undefined` when it would have to ask. Lets a reader of many events skip a promise per
   * key, and trust a check of an event's keys until then instead of looking every key up again for each
   * of its readers: one lookup answers both.
   */
  known?(keyId: string): { readonly value: KeyRef | null; readonly until: number } | undefined;
  /** How many keys this process has found erased so far: by erasing them, or by reading them gone. */
  erasures?(): number;
  /** The clock of `known`, in milliseconds. */
  keyClock?(): number;
  /** The organization's live subject with this phone number (digits only), without making one. */
  subjectOfPhone(organizationId: string, phoneDigits: string): Promise<string | null>;
  /**
   * Deletes the subjects' keys, content keys included, for good. Idempotent. Every subject of the same
   * number goes with them (two replicas making the same new subject at once may both have made one).
   */
  eraseSubjects(subjectIds: readonly string[]): Promise<void>;
  /** Deletes the content keys of these conversations (stream ids) for good. Idempotent. */
  eraseContent(streamIds: readonly string[]): Promise<void>;
}
