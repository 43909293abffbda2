/**
 * How the read models follow an erasure (docs/privacy.md). Once a subject's keys are deleted, its
 * events read with placeholders (domain/privacy/erased.ts); `PersonalDataErased` and
 * `ConversationContentErased` name the documents built from them, and each read model turns those into
 * what a replay of the events, now reading placeholders, would build. The helpers here are the
 * placeholder rules as documents hold them; each projection applies them to its own fields.
 */
import { CLEAR_RECORD_FIELDS, ERASED } from '../../domain/privacy/erased';
import {
  erasedItemValues,
  erasedShapeOf,
  itemPathOf,
  pathsOf,
  PERSONAL_FIELDS,
  putBackIntoItems,
  type KeyKind,
} from '../../domain/privacy/personal-fields';
import {
  erasureEventTypes,
  type ConversationContentErased,
  type ErasureEvent,
  type PersonalDataErased,
} from '../../domain/privacy/erasure';
import type { RecordedEvent } from '../../domain/shared/recorded-event';

export { erasureEventTypes };

/** A recorded erasure: who it was for (`subjects`: a subject's request; `content`: retention). */
export type Erasure =
  | { scope: 'subjects'; data: PersonalDataErased['data'] }
  | { scope: 'content'; data: ConversationContentErased['data'] };

/** The erasure an event records, or null for any other event. */
export function erasureOf(event: RecordedEvent): Erasure | null {
  const erasure = event as RecordedEvent & ErasureEvent;
  if (erasure.type === 'PersonalDataErased') return { scope: 'subjects', data: erasure.data };
  if (erasure.type === 'ConversationContentErased') return { scope: 'content', data: erasure.data };
  return null;
}

/** A document the erasure may change: one of the erasure's own organization (ids are global). */
export const ownedBy = (doc: { organizationId: string | null } | null, erasure: Erasure): boolean =>
  doc !== null && doc.organizationId === erasure.data.organizationId;

/** A personal text field once its key is gone. */
export const erasedText = (): string => ERASED;

/** A customer record once its subject is erased: the clear fields as they were, every other one `ERASED`. */
export function erasedRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([field, value]) => [field, CLEAR_RECORD_FIELDS.has(field) ? value : ERASED]),
  );
}

/** A transcript once its conversation's key is gone: the same turns and speakers, each message `ERASED`. */
export const erasedTurns = <T extends { message: string }>(turns: readonly T[]): T[] =>
  turns.map((turn) => ({ ...turn, message: ERASED }));

/** Chat messages once their conversation's key is gone: the same entries, each content `ERASED`. */
export const erasedMessages = <T extends { content: string }>(messages: readonly T[]): T[] =>
  messages.map((message) => ({ ...message, content: ERASED }));

/** Extracted data once its conversation's key is gone. */
export const erasedData = (): Record<string, unknown> => ({});

/**
 * A list's items once the key of a field of each is gone (`errors[].error_data.details`,
 * personal-fields.ts): the same items, that field of each `ERASED`.
 */
export function erasedItems<T>(items: readonly T[], path: string): T[] {
  const data: Record<string, unknown> = { [itemPathOf(path)!.list]: items };
  putBackIntoItems(data, path, erasedItemValues(data, path));
  return data[itemPathOf(path)!.list] as T[];
}

/** A path's placeholder, in the data as opened: a transcript keeps its turns (erased.ts). */
function placeholderAt(data: Record<string, unknown>, path: string): unknown {
  switch (erasedShapeOf(path)) {
    case 'transcript': {
      const turns = data[path];
      return Array.isArray(turns) ? erasedTurns(turns as { message: string }[]) : ERASED;
    }
    case 'object':
      return erasedData();
    case 'items': {
      const items = data[itemPathOf(path)!.list];
      return Array.isArray(items) ? erasedItems(items, path) : items;
    }
    case 'text':
      return ERASED;
  }
}

/**
 * An event's data and metadata as the event store reads them once the erasure's keys are gone (the
 * subject's, or a conversation's content key): each sealed field its placeholder, and `erased` listing
 * every erased path in the order of its groups, those erased before included. An event with no
 * personal fields is as it was.
 */
export function erasedEvent<M extends { erased?: string[] }>(
  type: string,
  data: unknown,
  metadata: M,
  erasure: Erasure,
): { data: unknown; metadata: M } {
  const rule = PERSONAL_FIELDS[type];
  if (!rule || typeof data !== 'object' || data === null) return { data, metadata };
  const before = new Set(metadata.erased ?? []);
  const kinds: ReadonlySet<KeyKind> = new Set(erasure.scope === 'subjects' ? ['subject', 'content'] : ['content']);
  const groups = rule.groups.map((group) =>
    pathsOf(group, data as Record<string, unknown>).map((p) => [group, p] as const),
  );
  const erased = groups
    .filter((paths) => paths.some(([group, path]) => kinds.has(group.key) || before.has(path)))
    .flatMap((paths) => paths.map(([, path]) => path));
  if (erased.length === 0) return { data, metadata };
  const next: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const path of erased) {
    const items = itemPathOf(path);
    const dot = path.indexOf('.');
    if (items) next[items.list] = placeholderAt(next, path);
    else if (dot < 0) next[path] = placeholderAt(next, path);
    else next[path.slice(0, dot)] = { ...(next[path.slice(0, dot)] as object), [path.slice(dot + 1)]: ERASED };
  }
  return { data: next, metadata: { ...metadata, erased } };
}
