/**
 * Sealing personal fields of an event's data (docs/privacy.md): each group of fields sealed with one
 * key is taken out of `data` and kept, encrypted with AES-256-GCM, in `data.sealed`:
 *
 *   data.sealed = [{ key: keyId, fields: [paths], iv, data }]   (iv and data in base64; data ends with the tag)
 *
 * A top-level field or a record's field taken out stays where it was, as `null`, so that opening puts
 * its value back in its place: an event opens to its data in the order it was decided, in every process
 * and every rebuild (events sealed before this read with their opened fields after the others).
 *
 * The IV is random (12 bytes) for every group. The associated data binds the key id, the event type and
 * the paths, so a group moved to another event type, or relabelled as other fields, fails to open like
 * a tampered one: loudly, never as wrong data.
 *
 * A transcript is sealed message by message: its turns and speakers stay in the clear (without their
 * messages), so that an erased transcript reads as the same turns, each message erased (erased.ts).
 *
 * Opening with the key restores the fields exactly as they were (a JSON round trip). Without it (the
 * key was erased) each sealed path reads as its erased placeholder and is listed in `erased`. A group
 * written for a subject already erased has no ciphertext (`iv` and `data` empty): there was nothing it
 * could be sealed with, and it reads as erased.
 */
import { randomFillSync } from 'node:crypto';
import { IV_BYTES, nodeAesGcm, TAG_BYTES, type AesGcm } from './aes-gcm';
import { ERASED } from '../../domain/privacy/erased';
import {
  erasedItemValues,
  erasedShapeOf,
  type ErasedShape,
  putBackIntoItems,
  takeOutOfItems,
} from '../../domain/privacy/personal-fields';

export type SealedGroup = { key: string; fields: string[]; iv: string; data: string };

/** A group to seal: its paths, and the key (null: the key is gone, the fields are written erased). */
export type GroupToSeal = { keyId: string; key: Buffer | null; fields: readonly string[] };

/** A sealed group that does not open with its key: changed, moved to another event or field, or a wrong key. */
export class SealedFieldsTamperedError extends Error {
  constructor(eventType: string, fields: readonly string[], keyId: string) {
    super(`Sealed fields ${fields.join(', ')} of a ${eventType} event (key ${keyId}) do not open: they were altered`);
    this.name = 'SealedFieldsTamperedError';
  }
}

/**
 * Random IVs drawn from a pool filled 4,096 at a time: one system call per IV is most of a seal's cost.
 * Each IV is a view of the pool made once (`iv` is the one drawn last; the cipher reads it at once), its
 * base64 a slice of the pool's, written once per refill (12 bytes are 16 characters, with no padding),
 * and the pool is refilled only once every IV of it was used: every IV is used once. Nothing is
 * allocated per IV.
 */
const IV_POOL = 4096;
const IV_TEXT = (IV_BYTES / 3) * 4;
const ivs = Buffer.alloc(IV_POOL * IV_BYTES);
const ivViews = Array.from({ length: IV_POOL }, (_, i) => ivs.subarray(i * IV_BYTES, (i + 1) * IV_BYTES));
let ivTexts = '';
let iv = ivViews[0]!;
let ivsUsed = IV_POOL;
/** Draws the next IV into `iv`; answers it in base64. */
function nextIv(): string {
  if (ivsUsed === IV_POOL) {
    randomFillSync(ivs);
    ivTexts = ivs.toString('base64');
    ivsUsed = 0;
  }
  const at = ivsUsed++;
  iv = ivViews[at]!;
  return ivTexts.slice(at * IV_TEXT, (at + 1) * IV_TEXT);
}

/**
 * `JSON.stringify(['sealed/1', keyId, eventType, fields])` as bytes, written into a buffer reused for
 * every group (the cipher takes it in at once), through a view kept for each length. The start is the
 * same for every group and stays written; the part after the key id is the same for every event of a
 * type with the same fields: the last few of each type are kept as bytes, recognised by their paths
 * (the same strings each time, personal-fields.ts `pathsOf`), so that the groups of an event sealed
 * with two keys (a chat's number and its message) do not write each other's out. Key ids
 * (application/ports/key-store.ts) are letters, digits, dashes and dots, which JSON writes as they are;
 * any other is written by JSON.
 */
type Tail = { fields: readonly string[]; tail: Buffer };
const associatedTails = new Map<string, Tail[]>();
const MAX_TAILS = 1000;
/** Tails kept per event type: more than the groups of any one event. */
const TAILS_PER_TYPE = 4;
const ASSOCIATED_START = '["sealed/1",';
const PLAIN_KEY_ID = /^[\w.-]*$/;
let associated = Buffer.alloc(1024);
let associatedViews: Buffer[] = [];
const startLength = associated.write(ASSOCIATED_START, 'latin1');
function associatedData(keyId: string, eventType: string, fields: readonly string[]): Buffer {
  const last = tailOf(eventType, fields);
  const id = PLAIN_KEY_ID.test(keyId) ? keyId : JSON.stringify(keyId).slice(1, -1);
  const length = startLength + Buffer.byteLength(id) + 3 + last.tail.length;
  if (length > associated.length) {
    associated = Buffer.alloc(length * 2);
    associated.write(ASSOCIATED_START, 'latin1');
    associatedViews = [];
  }
  let at = startLength;
  associated[at++] = 0x22; // "
  at += associated.write(id, at);
  associated[at++] = 0x22; // "
  associated[at++] = 0x2c; // ,
  last.tail.copy(associated, at);
  return (associatedViews[length] ??= associated.subarray(0, length));
}

/** The part of the associated data after the key id, for these paths of this type (made on a miss). */
function tailOf(eventType: string, fields: readonly string[]): Tail {
  let tails = associatedTails.get(eventType);
  if (tails === undefined) {
    if (associatedTails.size >= MAX_TAILS) associatedTails.clear();
    associatedTails.set(eventType, (tails = []));
  }
  for (const kept of tails) if (samePaths(kept.fields, fields)) return kept;
  const made = { fields: fields.slice(), tail: Buffer.from(`${JSON.stringify(eventType)},${JSON.stringify(fields)}]`) };
  // The latest first; the oldest goes when the type has as many as it keeps.
  tails.unshift(made);
  if (tails.length > TAILS_PER_TYPE) tails.pop();
  return made;
}

/** Whether two lists of paths are the same, in the same order. */
export function samePaths(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What a path names, worked out once per path: its erased shape, its top-level field and, for a
 * record's field, the field's name. Bounded: a record's extra fields are the client's to name.
 */
type PathInfo = { shape: ErasedShape; top: string; field: string | null };
const pathInfos = new Map<string, PathInfo>();
const MAX_PATHS = 10_000;
function infoOf(path: string): PathInfo {
  let info = pathInfos.get(path);
  if (info === undefined) {
    const dot = path.indexOf('.');
    info = {
      shape: erasedShapeOf(path),
      top: dot < 0 ? path : path.slice(0, dot),
      field: dot < 0 ? null : path.slice(dot + 1),
    };
    if (pathInfos.size >= MAX_PATHS) pathInfos.clear();
    pathInfos.set(path, info);
  }
  return info;
}

type Data = Record<string, unknown>;
type Turn = Record<string, unknown>;

const isTranscript = (value: unknown): value is Turn[] =>
  Array.isArray(value) && value.every((turn) => typeof turn === 'object' && turn !== null && !Array.isArray(turn));

/** The sealed groups of an event's data; none when it has none (an event written in the clear). */
export function sealedGroupsOf(data: unknown): SealedGroup[] {
  if (typeof data !== 'object' || data === null) return [];
  const sealed = (data as Data).sealed;
  return Array.isArray(sealed) ? (sealed as SealedGroup[]) : [];
}

/**
 * `data` with each group's fields taken out and sealed into `sealed`: a shallow copy, with new copies
 * of the records and transcripts the paths reach into (`data` itself is left as it was). Paths name
 * top-level fields or a record's field (`record.first_name`); a transcript keeps its turns without messages.
 * `onSealed` is told the values each group sealed (what `unsealFields` is to be given for it).
 * `cipher`: the AES-256-GCM it runs on (aes-gcm.ts; all give the same bytes).
 */
export function sealFields(
  eventType: string,
  data: Data,
  groups: readonly GroupToSeal[],
  onSealed?: (values: readonly unknown[]) => void,
  cipher: AesGcm = nodeAesGcm,
): Data {
  if (groups.every((group) => group.fields.length === 0)) return data;
  const clear = clearCopy(data, groups, eventType);
  const sealed: SealedGroup[] = [...sealedGroupsOf(data)];
  for (const group of groups) {
    if (group.fields.length === 0) continue;
    const fields = group.fields.slice();
    const values: unknown[] = [];
    for (const path of fields) values.push(sealedValue(data, clear, path));
    if (group.key === null) {
      sealed.push({ key: group.keyId, fields, iv: '', data: '' });
      continue;
    }
    onSealed?.(values);
    sealed.push(encrypt(cipher, eventType, group.keyId, group.key, fields, values));
  }
  clear.sealed = sealed;
  return clear;
}

/** One group's values under its key: a fresh IV, the associated data, the ciphertext and its tag. */
function encrypt(
  cipher: AesGcm,
  eventType: string,
  keyId: string,
  key: Buffer,
  fields: string[],
  values: readonly unknown[],
): SealedGroup {
  const ivText = nextIv();
  const data = cipher.seal(key, iv, associatedData(keyId, eventType, fields), JSON.stringify(values));
  return { key: keyId, fields, iv: ivText, data };
}

/**
 * `data` with its sealed fields put back, opened with `keyOf` (null: that key is erased, its fields
 * read as placeholders and are listed in `erased`). Throws `SealedFieldsTamperedError` for a group that
 * does not open with its key. `known` gives the values of a group (by its index) known without opening
 * it: those `sealFields` sealed into it; they are put back the same way, so the result is the same.
 */
export function unsealFields(
  eventType: string,
  data: Data,
  keyOf: (keyId: string) => Buffer | null,
  known?: (group: number) => readonly unknown[] | undefined,
  cipher: AesGcm = nodeAesGcm,
): { data: Data; erased: string[] } {
  const groups = sealedGroupsOf(data);
  if (groups.length === 0) return { data, erased: [] };
  // Copied by assignment: the engine adds properties to such a copy quickly, and slowly to a spread one.
  const open: Data = {};
  for (const name in data) if (name !== 'sealed') open[name] = data[name];
  copyContainers(open, data, groups);
  const erased: string[] = [];
  for (let index = 0; index < groups.length; index++) {
    const group = groups[index]!;
    const values = known?.(index) ?? openedValues(cipher, eventType, group, keyOf);
    if (values) {
      for (let i = 0; i < group.fields.length; i++) putBack(open, group.fields[i]!, values[i]);
      continue;
    }
    for (const path of group.fields) putBack(open, path, erasedValue(open, path));
    erased.push(...group.fields);
  }
  return { data: open, erased };
}

/** A group's values deciphered with its key; null when the key is erased. */
function openedValues(
  cipher: AesGcm,
  eventType: string,
  group: SealedGroup,
  keyOf: (keyId: string) => Buffer | null,
): unknown[] | null {
  const key = keyOf(group.key);
  return key === null ? null : openGroup(cipher, eventType, group, key);
}

function openGroup(cipher: AesGcm, eventType: string, group: SealedGroup, key: Buffer): unknown[] {
  const values = openedOrUndefined(cipher, eventType, group, key);
  if (values === undefined) throw new SealedFieldsTamperedError(eventType, group.fields, group.key);
  return values;
}

/** Past this, a group's bytes are decoded into a buffer of their own rather than the one kept. */
const MAX_KEPT_BYTES = 1 << 20;
/** The IV and the ciphertext of the group being opened, decoded into buffers kept for the next ones. */
const openingIv = Buffer.alloc(IV_BYTES);
let opening = Buffer.alloc(4096);

/** A group's values deciphered with its key; undefined when it does not open (altered, moved, another key). */
function openedOrUndefined(cipher: AesGcm, eventType: string, group: SealedGroup, key: Buffer): unknown[] | undefined {
  const { iv: ivText, data } = group;
  if (typeof ivText !== 'string' || typeof data !== 'string' || ivText.length !== IV_TEXT) return undefined;
  if (openingIv.write(ivText, 'base64') !== IV_BYTES) return undefined;
  // Three bytes per four characters at most.
  const most = Math.ceil(data.length / 4) * 3;
  if (most > opening.length && most <= MAX_KEPT_BYTES) opening = Buffer.alloc(Math.min(most * 2, MAX_KEPT_BYTES));
  const bytes = most <= opening.length ? opening : Buffer.alloc(most);
  const length = bytes.write(data, 'base64');
  if (length < TAG_BYTES) return undefined;
  let values: unknown;
  try {
    const aad = associatedData(group.key, eventType, group.fields);
    const plain = cipher.open(key, openingIv, aad, bytes.subarray(0, length));
    if (plain === null) return undefined;
    values = JSON.parse(plain);
  } catch {
    return undefined;
  }
  return Array.isArray(values) && values.length === group.fields.length ? values : undefined;
}

/**
 * Replaces, in `open` (a shallow copy of `data`), the records and transcripts the paths reach into by
 * copies of their own (the store's objects stay untouched).
 */
function copyContainers(open: Data, data: Data, groups: readonly { fields: readonly string[] }[]): void {
  for (const group of groups)
    for (const path of group.fields) {
      const { top, field } = infoOf(path);
      const value = open[top];
      if (value !== data[top]) continue;
      if (field !== null && typeof value === 'object' && value !== null) open[top] = Object.assign({}, value);
      else if (field === null && isTranscript(value)) open[top] = value.map((turn) => Object.assign({}, turn));
    }
}

/**
 * Whether the groups, sealed from `data`, open to `data` itself, field for field and in its order: when
 * every path is a top-level field or a record's field (those keep their place, see `clearCopy`). A
 * transcript's messages and a field of a list's items are put back at the end of each turn or item.
 */
export function opensInPlace(data: Data, groups: readonly GroupToSeal[]): boolean {
  for (const group of groups)
    for (const path of group.fields) {
      const { shape } = infoOf(path);
      if (shape === 'items' || (shape === 'transcript' && isTranscript(data[path]))) return false;
    }
  return true;
}

/**
 * The copy of `data` that is stored in the clear: the top-level fields sealed kept in their place as
 * `null`, and each record a path reaches into copied with its sealed fields `null` in their place (built
 * field by field: deleting from an object slows every later use of it), a transcript's turns without
 * their messages. Lists are copied by `sealedValue`.
 */
function clearCopy(data: Data, groups: readonly GroupToSeal[], eventType: string): Data {
  const { topLevel, records, transcripts } = planOf(eventType, data, groups);
  const clear: Data = {};
  for (const name in data) clear[name] = topLevel?.has(name) ? null : data[name];
  for (const [top, fields] of records ?? []) {
    const record = data[top];
    if (typeof record !== 'object' || record === null) continue;
    const kept: Data = {};
    for (const name in record) kept[name] = fields.has(name) ? null : (record as Data)[name];
    clear[top] = kept;
  }
  if (transcripts)
    for (const group of groups)
      for (const path of group.fields) {
        const turns = data[path];
        if (infoOf(path).shape === 'transcript' && isTranscript(turns))
          clear[path] = turns.map(({ message: _message, ...turn }) => turn);
      }
  return clear;
}

/**
 * What `clearCopy` empties for a list of groups: the top-level fields, each record's fields, and whether
 * a transcript loses its messages. The same for every event of a type sealed with the same paths (most
 * of a bulk add's): the last few of each type are kept, recognised by their paths, as `tailOf` keeps
 * the associated data's.
 */
type Plan = {
  paths: (readonly string[])[];
  topLevel: Set<string> | null;
  records: Map<string, Set<string>> | null;
  transcripts: boolean;
  /**
   * Whether it holds for every event with these paths: none of them is of a transcript's shape (such a
   * path is planned by whether the event's value there is a transcript). The others are not kept.
   */
  reusable: boolean;
};
const plans = new Map<string, Plan[]>();
function planOf(eventType: string, data: Data, groups: readonly GroupToSeal[]): Plan {
  let kept = plans.get(eventType);
  if (kept === undefined) {
    if (plans.size >= MAX_TAILS) plans.clear();
    plans.set(eventType, (kept = []));
  }
  for (const plan of kept) if (samePlanPaths(plan, groups)) return plan;
  const made = makePlan(data, groups);
  if (!made.reusable) return made;
  kept.unshift(made);
  if (kept.length > TAILS_PER_TYPE) kept.pop();
  return made;
}

/** Whether a plan kept (a reusable one) was made for these groups' paths. */
function samePlanPaths(plan: Plan, groups: readonly GroupToSeal[]): boolean {
  if (plan.paths.length !== groups.length) return false;
  for (let i = 0; i < groups.length; i++) if (!samePaths(plan.paths[i]!, groups[i]!.fields)) return false;
  return true;
}

function makePlan(data: Data, groups: readonly GroupToSeal[]): Plan {
  let topLevel: Set<string> | null = null;
  let records: Map<string, Set<string>> | null = null;
  let transcripts = false;
  let reusable = true;
  for (const group of groups)
    for (const path of group.fields) {
      const { shape, top, field } = infoOf(path);
      if (shape === 'items') continue;
      if (shape === 'transcript') reusable = false;
      if (shape === 'transcript' && isTranscript(data[path])) {
        transcripts = true;
        continue;
      }
      if (field === null) (topLevel ??= new Set()).add(path);
      else {
        const fields = (records ??= new Map()).get(top);
        if (fields) fields.add(field);
        else records.set(top, new Set([field]));
      }
    }
  return { paths: groups.map((group) => group.fields.slice()), topLevel, records, transcripts, reusable };
}

/** A path's value to seal, read from `data`: a transcript's messages (its turns stay in the clear). */
function sealedValue(data: Data, clear: Data, path: string): unknown {
  const { shape, top, field } = infoOf(path);
  // A field of each item of a list (personal-fields.ts): the items stay in `clear`, copied without it.
  if (shape === 'items') return takeOutOfItems(clear, path);
  if (field !== null) {
    const record = data[top];
    return typeof record === 'object' && record !== null ? (record as Data)[field] : undefined;
  }
  const value = data[path];
  return shape === 'transcript' && isTranscript(value) ? { messages: value.map((turn) => turn.message) } : value;
}

/** Puts a path's value back: what `sealedValue` took (a transcript's messages into its turns). */
function putBack(data: Data, path: string, value: unknown): void {
  const { shape, top, field } = infoOf(path);
  if (shape === 'items') return putBackIntoItems(data, path, value);
  if (field !== null) {
    let record = data[top];
    if (typeof record !== 'object' || record === null) data[top] = record = {};
    (record as Data)[field] = value;
    return;
  }
  const turns = data[path];
  const messages = (value as { messages?: unknown } | null)?.messages;
  if (shape === 'transcript' && isTranscript(turns) && Array.isArray(messages)) {
    data[path] = turns.map((turn, i) => withMessage(turn, messages[i]));
    return;
  }
  data[path] = value;
}

/** A turn with its message where it was (after the speaker), as the transcript was recorded. */
function withMessage(turn: Turn, message: unknown): Turn {
  if (message === undefined) return turn;
  const withIt = Object.assign({}, turn);
  withIt.message = message;
  return withIt;
}

/** What an erased path reads as: a placeholder (erased.ts), a transcript's turns with each message erased. */
function erasedValue(data: Data, path: string): unknown {
  switch (infoOf(path).shape) {
    case 'transcript': {
      const turns = data[path];
      return isTranscript(turns) ? { messages: turns.map(() => ERASED) } : ERASED;
    }
    case 'object':
      return {};
    case 'items':
      return erasedItemValues(data, path);
    case 'text':
      return ERASED;
  }
}
