/**
 * Sealing personal fields of an event's data (docs/privacy.md): each group of fields sealed with one
 * key is taken out of `data` and kept, encrypted with AES-256-GCM, in `data.sealed`:
 *
 *   data.sealed = [{ key: keyId, fields: [paths], iv, data }]   (iv and data in base64; data ends with the tag)
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
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { ERASED } from '../../domain/privacy/erased';
import {
  erasedItemValues,
  erasedShapeOf,
  putBackIntoItems,
  takeOutOfItems,
  valueAt,
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

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Random IVs drawn from a pool filled 4,096 at a time: one system call per IV is most of a seal's cost.
 * Each IV is a view of the pool, used (by the cipher, which copies it, and in base64) before the pool
 * is refilled: every IV is used once.
 */
const IV_POOL = 4096;
const ivs = Buffer.alloc(IV_POOL * IV_BYTES);
let ivsUsed = IV_POOL;
function randomIv(): Buffer {
  if (ivsUsed === IV_POOL) {
    randomFillSync(ivs);
    ivsUsed = 0;
  }
  return ivs.subarray(ivsUsed * IV_BYTES, ++ivsUsed * IV_BYTES);
}

/**
 * `JSON.stringify(['sealed/1', keyId, eventType, fields])` as bytes; the part after the key id is the
 * same for every event of a type with the same fields, so it is written once (a few hundred of them).
 */
const associatedTails = new Map<string, string>();
const MAX_TAILS = 1000;
function associatedData(keyId: string, eventType: string, fields: readonly string[]): Buffer {
  const name = `${eventType}\n${fields.join('\n')}`;
  let tail = associatedTails.get(name);
  if (tail === undefined) {
    tail = JSON.stringify([eventType, fields]).slice(1);
    if (associatedTails.size >= MAX_TAILS) associatedTails.clear();
    associatedTails.set(name, tail);
  }
  return Buffer.from(`["sealed/1",${JSON.stringify(keyId)},${tail}`);
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
 */
export function sealFields(
  eventType: string,
  data: Data,
  groups: readonly GroupToSeal[],
  onSealed?: (values: readonly unknown[]) => void,
): Data {
  if (groups.every((group) => group.fields.length === 0)) return data;
  const clear = clearCopy(data, groups);
  const sealed: SealedGroup[] = [...sealedGroupsOf(data)];
  for (const group of groups) {
    if (group.fields.length === 0) continue;
    const values = group.fields.map((path) => sealedValue(data, clear, path));
    if (group.key === null) {
      sealed.push({ key: group.keyId, fields: [...group.fields], iv: '', data: '' });
      continue;
    }
    onSealed?.(values);
    const iv = randomIv();
    const cipher = createCipheriv('aes-256-gcm', group.key, iv);
    cipher.setAAD(associatedData(group.keyId, eventType, group.fields));
    const encrypted = Buffer.concat([
      cipher.update(JSON.stringify(values), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    sealed.push({
      key: group.keyId,
      fields: [...group.fields],
      iv: iv.toString('base64'),
      data: encrypted.toString('base64'),
    });
  }
  clear.sealed = sealed;
  return clear;
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
): { data: Data; erased: string[] } {
  const groups = sealedGroupsOf(data);
  if (groups.length === 0) return { data, erased: [] };
  const { sealed: _sealed, ...rest } = data;
  const open = copyContainers(
    rest,
    groups.map((g) => ({ fields: g.fields })),
  );
  const erased: string[] = [];
  groups.forEach((group, index) => {
    const values = known?.(index);
    if (values) return group.fields.forEach((path, i) => putBack(open, path, values[i]));
    const key = keyOf(group.key);
    if (key === null) {
      for (const path of group.fields) putBack(open, path, erasedValue(open, path));
      erased.push(...group.fields);
      return;
    }
    const opened = openGroup(eventType, group, key);
    group.fields.forEach((path, i) => putBack(open, path, opened[i]));
  });
  return { data: open, erased };
}

function openGroup(eventType: string, group: SealedGroup, key: Buffer): unknown[] {
  const tampered = () => new SealedFieldsTamperedError(eventType, group.fields, group.key);
  const bytes = Buffer.from(group.data, 'base64');
  const iv = Buffer.from(group.iv, 'base64');
  if (iv.length !== IV_BYTES || bytes.length < TAG_BYTES) throw tampered();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(associatedData(group.key, eventType, group.fields));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]);
    const values = JSON.parse(plain.toString('utf8')) as unknown;
    if (!Array.isArray(values) || values.length !== group.fields.length) throw tampered();
    return values;
  } catch (error) {
    if (error instanceof SealedFieldsTamperedError) throw error;
    throw tampered();
  }
}

/** A shallow copy, with copies of the records and transcripts the paths reach into (the store's objects stay untouched). */
function copyContainers(data: Data, groups: readonly { fields: readonly string[] }[]): Data {
  const copy: Data = { ...data };
  for (const group of groups)
    for (const path of group.fields) {
      const dot = path.indexOf('.');
      const top = dot < 0 ? path : path.slice(0, dot);
      const value = copy[top];
      if (dot >= 0 && typeof value === 'object' && value !== null && value === data[top]) copy[top] = { ...value };
      if (dot < 0 && isTranscript(value) && value === data[top]) copy[top] = value.map((turn) => ({ ...turn }));
    }
  return copy;
}

/**
 * The copy of `data` that is stored in the clear: the top-level fields sealed left out, and each record
 * a path reaches into copied without its sealed fields (built field by field: deleting from an object
 * slows every later use of it), a transcript's turns without their messages. Lists are copied by `sealedValue`.
 */
function clearCopy(data: Data, groups: readonly GroupToSeal[]): Data {
  let topLevel: Set<string> | null = null;
  let records: Map<string, Set<string>> | null = null;
  for (const group of groups)
    for (const path of group.fields) {
      const shape = erasedShapeOf(path);
      const dot = path.indexOf('.');
      if (shape === 'items' || (shape === 'transcript' && isTranscript(data[path]))) continue;
      if (dot < 0) (topLevel ??= new Set()).add(path);
      else {
        const top = path.slice(0, dot);
        const fields = (records ??= new Map()).get(top) ?? new Set<string>();
        records.set(top, fields.add(path.slice(dot + 1)));
      }
    }
  const clear: Data = {};
  for (const name in data) if (!topLevel?.has(name)) clear[name] = data[name];
  for (const [top, fields] of records ?? []) {
    const record = data[top];
    if (typeof record !== 'object' || record === null) continue;
    const kept: Data = {};
    for (const name in record) if (!fields.has(name)) kept[name] = (record as Data)[name];
    clear[top] = kept;
  }
  for (const group of groups)
    for (const path of group.fields) {
      const turns = data[path];
      if (erasedShapeOf(path) === 'transcript' && isTranscript(turns))
        clear[path] = turns.map(({ message: _message, ...turn }) => turn);
    }
  return clear;
}

/** A path's value to seal, read from `data`: a transcript's messages (its turns stay in the clear). */
function sealedValue(data: Data, clear: Data, path: string): unknown {
  // A field of each item of a list (personal-fields.ts): the items stay in `clear`, copied without it.
  if (erasedShapeOf(path) === 'items') return takeOutOfItems(clear, path);
  const dot = path.indexOf('.');
  if (dot >= 0) return valueAt(data, path);
  const value = data[path];
  return erasedShapeOf(path) === 'transcript' && isTranscript(value)
    ? { messages: value.map((turn) => turn.message) }
    : value;
}

/** Puts a path's value back: what `takeOut` took (a transcript's messages into its turns). */
function putBack(data: Data, path: string, value: unknown): void {
  if (erasedShapeOf(path) === 'items') return putBackIntoItems(data, path, value);
  const dot = path.indexOf('.');
  if (dot >= 0) {
    const top = path.slice(0, dot);
    if (typeof data[top] !== 'object' || data[top] === null) data[top] = {};
    (data[top] as Data)[path.slice(dot + 1)] = value;
    return;
  }
  const turns = data[path];
  const messages = (value as { messages?: unknown } | null)?.messages;
  if (erasedShapeOf(path) === 'transcript' && isTranscript(turns) && Array.isArray(messages)) {
    data[path] = turns.map((turn, i) => withMessage(turn, messages[i]));
    return;
  }
  data[path] = value;
}

/** A turn with its message where it was (after the speaker), as the transcript was recorded. */
function withMessage(turn: Turn, message: unknown): Turn {
  if (message === undefined) return turn;
  return { ...turn, message };
}

/** What an erased path reads as: a placeholder (erased.ts), a transcript's turns with each message erased. */
function erasedValue(data: Data, path: string): unknown {
  switch (erasedShapeOf(path)) {
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
