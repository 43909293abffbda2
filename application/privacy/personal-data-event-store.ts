/**
 * The event store with personal data sealed (docs/privacy.md, "How personal data is stored"): appends
 * seal the personal fields of the events that have some (domain/privacy/personal-fields.ts) with keys
 * kept outside the log (application/ports/key-store.ts); reads open them again, so every reader above
 * (the upcasters, deciders, projections, process managers, the audit, the live feed) sees the events as
 * they were decided. An event read with sealed fields names its subject in `metadata.subject`; one whose
 * key was erased reads with placeholders and lists them in `metadata.erased` (domain/privacy/erased.ts).
 * Neither is ever stored.
 *
 * The composition root wraps the store it opens in this, below the upcasting: `new
 * UpcastingEventStore(new PersonalDataEventStore(opened, keys))`.
 *
 * Events stored before sealing existed (no `sealed` in their data) are read as they are: their personal
 * data is in the log in the clear, and no key erases it (docs/privacy.md says what a deployment does).
 * With `seal: false` (`PERSONAL_DATA_ENCRYPTION=off`) appends are stored in the clear, and reads still
 * open what was sealed before.
 *
 * The subject of an event that does not name a number (a call's ending) is its stream's: the one its
 * first personal event was sealed for. A bounded map remembers the subject of the streams sealed or read
 * lately; on a miss the stream's first event is read. The key store being unavailable fails the append
 * (before anything is written) or the read with `KeyStoreUnavailableError`, which passes by itself.
 */
import {
  anonymousSubject,
  pathsOf,
  PERSONAL_FIELDS,
  phoneDigits,
  valueAt,
  type PersonalFieldsRule,
  type SubjectSource,
} from '../../domain/privacy/personal-fields';
import type { AppendResult, EventData, EventStore, ExpectedRevision, RecordedEvent } from '../ports/event-store';
import { subjectOfKeyId, type KeyRef, type KeyStore } from '../ports/key-store';
import {
  opensInPlace,
  samePaths,
  sealedGroupsOf,
  sealFields,
  unsealFields,
  type GroupToSeal,
  type SealedGroup,
} from './field-sealing';
import { BoundedCache } from './read-store-keys';
import { nodeAesGcm, type AesGcm } from './aes-gcm';
import { EventStoreDecorator } from '../event-store-decorator';

/** Whether the event carries what reads add to the metadata (its subject, the paths read erased). */
const hasReadSide = (event: EventData): boolean =>
  event.metadata.subject !== undefined || event.metadata.erased !== undefined;
/** What reads add to the metadata is never stored, even when an event read is appended again. */
function withoutReadSide(event: EventData): EventData {
  if (!hasReadSide(event)) return event;
  const { subject: _subject, erased: _erased, ...metadata } = event.metadata;
  return { ...event, metadata };
}

const hasPersonalFields = (event: EventData): boolean => PERSONAL_FIELDS[event.type] !== undefined;

/** Streams whose subject is remembered. */
const STREAM_SUBJECTS = 100_000;
/**
 * Positions of the log whose events are kept opened: every reader (the projections, each process
 * manager) reads the same new events, and opening each once per process rather than once per reader is
 * most of what sealing costs them.
 */
const OPENED_EVENTS = 20_000;

type Subject = { subjectId: string; organizationId: string };
/** An event's subject, its subject key (null: erased), and whether its stream's subject is remembered. */
type SubjectOf = { subject: Subject; subjectKey: KeyRef | null; remembered: boolean };
type Data = Record<string, unknown>;
/**
 * An event to seal: its rule, data and organization. `handle`: what finds its subject key, when that key
 * is all it is sealed with (it names a number and holds no conversation's content: most events sealed,
 * a customer added, a call placed); null when its keys are found otherwise.
 */
type ToSeal = { rule: PersonalFieldsRule; data: Data; organizationId: string; handle: string | null };

/**
 * An event opened here: its sealed groups as stored, the paths read erased, and the event as readers get
 * it. `until` and `erasures`: its keys were last seen reading as they did, and keep doing so until the
 * key store's clock reaches `until` unless its count of erasures moves from `erasures` (see `KeyStore.known`).
 */
type Opened = {
  groups: readonly SealedGroup[];
  erased: readonly string[];
  event: RecordedEvent;
  until: number;
  erasures: number;
};

/**
 * What sealing an event here put into its `data.sealed`, kept on that very list, under a symbol that is
 * not enumerable (neither JSON, nor a copy to another thread, nor a comparison sees it): the data it was
 * sealed from when it opens to that data itself, in its order (`opensInPlace`: most events), else the
 * values sealed into each group. A store that keeps in memory the events it was given (SQLite's) hands
 * them back to readers as the same objects: the list read back is then exactly what sealing made (the
 * same keys, IVs and ciphertexts), and it opens with nothing to decipher, to the data sealed or with the
 * values put back as opening puts them, so every process builds the same read models from it (the same
 * fields, in the same order). An event read back as a copy (from a file, another process) is deciphered.
 * `remembered`: sealing it remembered its stream's subject (reading it back need not). Kept as long as
 * the event is, no longer.
 */
type SealedHere = { decided: Data | null; values: (readonly unknown[])[]; remembered: boolean };
const SEALED_HERE = Symbol('sealed here');
type SealedList = readonly SealedGroup[] & { [SEALED_HERE]?: SealedHere };

export class PersonalDataEventStore extends EventStoreDecorator {
  private readonly streamSubjects = new BoundedCache<string, Subject>(STREAM_SUBJECTS);
  /** By position: the events opened here lately. */
  private readonly opened: PositionWindow<Opened>;
  private readonly cipher: AesGcm;

  constructor(
    store: EventStore,
    private readonly keys: KeyStore,
    /**
     * `keepOpened`: how many of the latest positions keep their events opened for the other readers
     * (`OPENED_EVENTS` when absent); none in a process whose one reader reads each event once (the admin
     * command's rebuild and verification), where every event kept would only be more for the collector.
     * `cipher`: the AES-256-GCM to seal and open with (aes-gcm.ts; node:crypto when absent).
     */
    private readonly options: { seal: boolean; keepOpened?: number; cipher?: AesGcm } = { seal: true },
  ) {
    super(store);
    this.opened = new PositionWindow<Opened>(options.keepOpened ?? OPENED_EVENTS);
    this.cipher = options.cipher ?? nodeAesGcm;
  }

  override appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    // Copied only when an event carries what reads add (most appends are of events just decided).
    const stored = events.some(hasReadSide) ? events.map(withoutReadSide) : events;
    if (!this.options.seal || !stored.some(hasPersonalFields))
      return this.store.appendToStream(streamId, stored, options);
    if (stored.length === 1) {
      // One event (most appends: each customer of a bulk add, each call placed): with its subject key
      // known here, sealed and handed to the store at once, with no promise between it and its append.
      try {
        const [event] = stored as [EventData];
        const sealed = this.sealedOne(streamId, event);
        return sealed instanceof Promise
          ? sealed.then((one) => this.store.appendToStream(streamId, [one], options))
          : this.store.appendToStream(streamId, [sealed], options);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.appendSealed(streamId, stored, options);
  }

  /** The events appended with their personal fields sealed, one after the other. */
  private async appendSealed(
    streamId: string,
    stored: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    const sealed = new Array<EventData>(stored.length);
    // In order: a stream's first event names the subject of the ones after it, in this append too.
    for (let i = 0; i < stored.length; i++) sealed[i] = await this.sealedOne(streamId, stored[i]!);
    return this.store.appendToStream(streamId, sealed, options);
  }

  /**
   * One event with its personal fields sealed (as it is when it has none): at once when it needs its
   * subject key alone and this process knows that key, else once its keys are at hand. A key asked for
   * is sealed with in its answer's callback: no async function of its own between each of a bulk add's
   * 10,000 waiting appends and its key.
   */
  private sealedOne(streamId: string, event: EventData): EventData | Promise<EventData> {
    const toSeal = this.toSeal(event, streamId);
    if (!toSeal) return event;
    if (toSeal.handle === null) return this.seal(streamId, event, toSeal);
    const known = this.keys.knownSubjectKey?.(toSeal.organizationId, toSeal.handle);
    if (known) return this.sealedWithSubjectKey(streamId, event, toSeal, known);
    return this.keys
      .subjectKey(toSeal.organizationId, toSeal.handle)
      .then((key) => this.sealedWithSubjectKey(streamId, event, toSeal, key));
  }

  /** What sealing an event starts from (see `ToSeal`); null when it has nothing to seal. */
  private toSeal(event: EventData, streamId: string): ToSeal | null {
    const rule = PERSONAL_FIELDS[event.type];
    const data = event.data as Data;
    if (!rule || typeof data !== 'object' || data === null || sealedGroupsOf(data).length > 0) return null;
    const organizationId = event.metadata.organizationId ?? (data.organizationId as string | undefined) ?? null;
    if (!organizationId) throw new Error(`A ${event.type} event names no organization: its personal data has no keys`);
    const source = rule.subject;
    const subjectKeyAlone = source.from === 'phone' && rule.groups.every((group) => group.key !== 'content');
    return { rule, data, organizationId, handle: subjectKeyAlone ? handleOf(source.field, data, streamId) : null };
  }

  /** An event that needs its subject key alone, sealed with it. */
  private sealedWithSubjectKey(
    streamId: string,
    event: EventData,
    { rule, data, organizationId }: ToSeal,
    key: KeyRef,
  ): EventData {
    const { subject, subjectKey, remembered } = this.ofPhone(streamId, organizationId, key);
    const groups: GroupToSeal[] = [];
    for (const group of rule.groups) {
      const fields = pathsOf(group, data);
      if (fields.length > 0) groups.push(this.subjectGroup(group.key, subject, subjectKey, fields));
    }
    return this.sealedWith(event, data, groups, remembered);
  }

  private async seal(streamId: string, event: EventData, { rule, data, organizationId }: ToSeal): Promise<EventData> {
    const { subject, subjectKey, remembered } =
      rule.subject.from === 'phone'
        ? this.ofPhone(
            streamId,
            organizationId,
            await this.keys.subjectKey(organizationId, handleOf(rule.subject.field, data, streamId)),
          )
        : await this.subjectOf(rule.subject, streamId, data, organizationId);
    const groups: GroupToSeal[] = [];
    for (const group of rule.groups) {
      const fields = pathsOf(group, data);
      if (fields.length === 0) continue;
      groups.push(
        group.key === 'content' && subjectKey
          ? await this.contentGroup(subject, streamId, fields)
          : this.subjectGroup(group.key, subject, subjectKey, fields),
      );
    }
    return this.sealedWith(event, data, groups, remembered);
  }

  /** The event with its groups sealed; `remembered`: sealing it remembered its stream's subject. */
  private sealedWith(event: EventData, data: Data, groups: GroupToSeal[], remembered: boolean): EventData {
    if (groups.length === 0) return event;
    const inPlace = opensInPlace(data, groups);
    const values: (readonly unknown[])[] = [];
    const sealed = sealFields(
      event.type,
      data,
      groups,
      inPlace ? undefined : (sealedValues) => values.push(sealedValues),
      this.cipher,
    );
    // Read back as sealed, it opens to what it was sealed from (what deciphering would answer).
    if (groups.every((group) => group.key !== null))
      Object.defineProperty(sealedGroupsOf(sealed), SEALED_HERE, {
        value: { decided: inPlace ? data : null, values, remembered },
      });
    // Built field by field: a spread costs several times more on Node 20.
    return { id: event.id, type: event.type, data: sealed, metadata: event.metadata };
  }

  /**
   * A group sealed with the subject key. A subject already erased has no key to seal with: its fields
   * are written erased (an empty group naming the erased key), whichever key they were for.
   */
  private subjectGroup(
    kind: 'subject' | 'content',
    subject: Subject,
    subjectKey: KeyRef | null,
    fields: string[],
  ): GroupToSeal {
    if (!subjectKey)
      return { keyId: kind === 'subject' ? subject.subjectId : `${subject.subjectId}.erased`, key: null, fields };
    return { keyId: subjectKey.keyId, key: subjectKey.key, fields };
  }

  /** A group sealed with the conversation's content key. */
  private async contentGroup(subject: Subject, streamId: string, fields: string[]): Promise<GroupToSeal> {
    const content = await this.keys.contentKey(subject, streamId);
    return { keyId: content.keyId, key: content.key, fields };
  }

  /**
   * The subject of an event that names no number (its stream's, or that of the stream it is about) and
   * its subject key (null when that subject was erased).
   */
  private async subjectOf(
    source: Exclude<SubjectSource, { from: 'phone' }>,
    streamId: string,
    data: Data,
    organizationId: string,
  ): Promise<SubjectOf> {
    const about = source.from === 'stream' ? streamId : source.stream(data);
    const known = about ? await this.subjectOfStream(about) : null;
    if (!known) {
      // Nothing names who this is about (a stream whose first event was lost, a malformed reference):
      // a subject of this stream alone, so the fields are still sealed.
      const key = await this.keys.subjectKey(organizationId, anonymousSubject(streamId));
      return { subject: { subjectId: key.subjectId, organizationId }, subjectKey: key, remembered: false };
    }
    if (about !== streamId && !this.streamSubjects.get(streamId)) this.streamSubjects.set(streamId, known);
    return { subject: known, subjectKey: await this.keys.keyOf(known.subjectId), remembered: true };
  }

  /** The subject of an event that names its number, from its subject key; remembered as its stream's. */
  private ofPhone(streamId: string, organizationId: string, key: KeyRef): SubjectOf {
    const subject = { subjectId: key.subjectId, organizationId };
    if (!this.streamSubjects.get(streamId)) this.streamSubjects.set(streamId, subject);
    return { subject, subjectKey: key, remembered: true };
  }

  /** The subject a stream's first event was sealed for (or, written in the clear, would be now). */
  private async subjectOfStream(streamId: string): Promise<Subject | null> {
    const known = this.streamSubjects.get(streamId);
    if (known) return known;
    const [first] = await this.store.readStream(streamId, { maxCount: 1 });
    if (!first) return null;
    const organizationId = first.metadata.organizationId;
    const [group] = sealedGroupsOf(first.data);
    const rule = PERSONAL_FIELDS[first.type];
    let subjectId: string | null = null;
    if (group) subjectId = subjectOfKeyId(group.key);
    else if (rule?.subject.from === 'phone' && organizationId) {
      const digits = phoneDigits(valueAt(first.data as Data, rule.subject.field));
      subjectId = (await this.keys.subjectKey(organizationId, digits || anonymousSubject(streamId))).subjectId;
    }
    if (!subjectId || !organizationId) return null;
    const subject = { subjectId, organizationId };
    this.streamSubjects.set(streamId, subject);
    return subject;
  }

  /**
   * The events with their sealed fields opened (those without any are handed on as they are). An event
   * sealed or opened here before is handed on as it was opened while every key it names reads as it did
   * then: the readers of one process (projections, process managers) open each event once between them,
   * and none deciphers what this process sealed.
   */
  protected override async readBack(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    const result: RecordedEvent[] = new Array(events.length);
    let toOpen: number[] | null = null;
    let keyIds: Set<string> | null = null;
    // What an event opened here keeps reading as (see `stillReadsAsBefore`), taken once for the page.
    const erasures = this.keys.erasures?.() ?? 0;
    const clock = this.keys.keyClock?.() ?? Infinity;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const groups = sealedGroupsOf(event.data);
      if (groups.length === 0) {
        result[i] = event;
        continue;
      }
      // The very groups opened before (a store hands each reader the events it keeps in memory): stored as
      // they were then, with nothing to compare; only their keys are looked at.
      const same = this.opened.get(event.position);
      if (
        same !== undefined &&
        same.groups === groups &&
        ((same.erasures === erasures && same.until > clock) || this.stillReadsAsBefore(same))
      ) {
        result[i] = same.event;
        continue;
      }
      const before = this.openedBefore(event, groups);
      if (before) {
        result[i] = before;
        continue;
      }
      (toOpen ??= []).push(i);
      keyIds ??= new Set();
      for (const group of groups) keyIds.add(group.key);
    }
    if (!toOpen || !keyIds) return result;
    const ids = [...keyIds];
    const refs = await Promise.all(ids.map((keyId) => this.keys.keyOf(keyId)));
    const keys = new Map<string, Buffer | null>();
    for (let i = 0; i < ids.length; i++) keys.set(ids[i]!, refs[i]?.key ?? null);
    const keyOf = (keyId: string) => keys.get(keyId) ?? null;
    for (const i of toOpen) {
      // Keys read again once their cached time was up, most of them unchanged.
      const event = events[i]!;
      const groups = sealedGroupsOf(event.data);
      result[i] = this.openedBefore(event, groups) ?? this.openOne(event, groups, keyOf);
    }
    return result;
  }

  /**
   * The event as opened here before, or as sealed here, if it is stored as it was then and every key it
   * names reads as it did (an erasure since is read as an erasure).
   */
  private openedBefore(event: RecordedEvent, groups: readonly SealedGroup[]): RecordedEvent | undefined {
    const before = this.opened.get(event.position);
    if (before && before.event.id === event.id)
      return sameGroups(before.groups, groups) && this.stillReadsAsBefore(before) ? before.event : undefined;
    const sealed = (groups as SealedList)[SEALED_HERE];
    if (!sealed) return undefined;
    const until = this.untilReadsAsBefore(groups, []);
    if (until === undefined) return undefined;
    const data =
      sealed.decided ??
      unsealFields(
        event.type,
        event.data as Data,
        () => null,
        (group) => sealed.values[group],
      ).data;
    const opened = this.withSubject(event, data, groups, [], !sealed.remembered);
    this.remember(event.position, groups, [], opened, until);
    return opened;
  }

  /**
   * Keeps an event opened, with until when its keys are known to read as they do now (`until`, when the
   * caller has just looked; else looked up here: never, if one is not known).
   */
  private remember(
    position: number,
    groups: readonly SealedGroup[],
    erased: readonly string[],
    event: RecordedEvent,
    until = this.knownUntil(groups),
  ) {
    this.opened.set(position, { groups, erased, event, until, erasures: this.keys.erasures?.() ?? 0 });
  }

  /** Until when every key of the groups is known to read as it does now (never, if one is not known). */
  private knownUntil(groups: readonly SealedGroup[]): number {
    let until = Infinity;
    for (const group of groups) until = Math.min(until, this.keys.known?.(group.key)?.until ?? -Infinity);
    return until;
  }

  /**
   * Whether every key of an event opened here reads as it did: without a look at each key while none
   * can have changed (the check before still holds), else as `untilReadsAsBefore` says.
   */
  private stillReadsAsBefore(opened: Opened): boolean {
    if (opened.erasures === this.keys.erasures?.() && opened.until > (this.keys.keyClock?.() ?? Infinity)) return true;
    const until = this.untilReadsAsBefore(opened.groups, opened.erased);
    if (until === undefined) return false;
    opened.until = until;
    opened.erasures = this.keys.erasures?.() ?? 0;
    return true;
  }

  /**
   * Whether every key of the groups is known here and reads as it did (erased, the fields of `erased`, or
   * not), answered as until when they all keep doing so (undefined: not all do, or one is not known).
   * One lookup per key answers both.
   */
  private untilReadsAsBefore(groups: readonly SealedGroup[], erased: readonly string[]): number | undefined {
    let until = Infinity;
    for (const group of groups) {
      const known = this.keys.known?.(group.key);
      if (known === undefined) return undefined;
      if (known.value === null && !group.fields.every((f) => erased.includes(f))) return undefined;
      if (known.until < until) until = known.until;
    }
    return until;
  }

  private openOne(
    event: RecordedEvent,
    groups: readonly SealedGroup[],
    keyOf: (keyId: string) => Buffer | null,
  ): RecordedEvent {
    const { data, erased } = unsealFields(event.type, event.data as Data, keyOf, undefined, this.cipher);
    const opened = this.withSubject(event, data, groups, erased, true);
    this.remember(event.position, groups, erased, opened);
    return opened;
  }

  /** The event as readers get it: its data opened, its subject (and the paths erased) in its metadata. */
  private withSubject(
    event: RecordedEvent,
    data: Data,
    groups: readonly SealedGroup[],
    erased: string[],
    /** False when sealing remembered the stream's subject already. */
    rememberStream: boolean,
  ): RecordedEvent {
    const subjectId = subjectOfKeyId(groups[0]!.key);
    if (rememberStream && event.metadata.organizationId && !this.streamSubjects.get(event.streamId))
      this.streamSubjects.set(event.streamId, { subjectId, organizationId: event.metadata.organizationId });
    // Copied by assignment: the engine adds properties to such a copy quickly, and slowly to a spread one.
    const metadata: RecordedEvent['metadata'] = Object.assign({}, event.metadata);
    metadata.subject = subjectId;
    if (erased.length > 0) metadata.erased = erased;
    return {
      id: event.id,
      type: event.type,
      data,
      metadata,
      streamId: event.streamId,
      revision: event.revision,
      position: event.position,
      recordedAt: event.recordedAt,
    };
  }
}

/** What finds the subject key of an event that names a number: its digits, or its stream when it has none. */
function handleOf(field: string, data: Data, streamId: string): string {
  return phoneDigits(valueAt(data, field)) || anonymousSubject(streamId);
}

/**
 * The events opened at the last `size` positions of the log, each in the slot of its position: the
 * readers read the log in order, so what they read again is there, found with no hashing and nothing
 * moved on each of their reads (an order of recent use would move an entry on every read).
 */
class PositionWindow<V extends { event: RecordedEvent }> {
  private readonly slots: (V | undefined)[];

  constructor(private readonly size: number) {
    this.slots = new Array<V | undefined>(size).fill(undefined);
  }

  get(position: number): V | undefined {
    if (this.size === 0) return undefined;
    const kept = this.slots[position % this.size];
    return kept?.event.position === position ? kept : undefined;
  }

  set(position: number, value: V): void {
    if (this.size > 0) this.slots[position % this.size] = value;
  }
}

/** Whether two lists of sealed groups are the same, byte for byte. */
function sameGroups(a: readonly SealedGroup[], b: readonly SealedGroup[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.key !== y.key || x.iv !== y.iv || x.data !== y.data || !samePaths(x.fields, y.fields)) return false;
  }
  return true;
}
