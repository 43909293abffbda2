/**
 * Which fields of which events are personal data, which key seals them, and whose data they are
 * (docs/privacy.md, "How personal data is stored"). The event store seals these fields on append and
 * opens them on read (application/privacy/personal-data-event-store.ts); every other field of every
 * event is stored as it is.
 *
 * The subject of an event (the person it is about) is found one of three ways:
 * - `phone`: from a phone number the event itself carries (the digits of the customer's number): the
 *   first event of a customer, call or chat stream;
 * - `stream`: the subject of the event's stream, named by the stream's first personal event (a call's
 *   ending is about whoever the call was queued to, even when no number is in the ending);
 * - `about`: the subject of another stream the event is about (a webhook delivery's call or chat).
 *
 * Two kinds of key seal the fields (application/ports/key-store.ts): the subject key seals who the
 * subject is (names, numbers, the customer record); a content key, one per conversation, seals what
 * was said (transcripts, summaries, extracted data, chat messages), so retention can erase a
 * conversation's content and keep who it was with.
 *
 * What was reviewed and kept in the clear (tests/unit/privacy/personal-fields.test.ts walks every
 * event type of domain/ and fails on a field named like personal data that is neither sealed here nor
 * listed with its reason):
 * - The blacklist (`NumbersBlacklisted`: numbers and names) stays in the clear on purpose: it is the
 *   record that a number must not be called or written to, which an erasure must not undo (the
 *   organization's legitimate interest, and the subject's own request when they asked to be left alone).
 * - Idempotent answers (`IdempotentRequestCompleted.body`, `IdempotentResponsePart.text`) are the JSON
 *   the routes answered. No idempotent route echoes a name, a number or a message: adding customers
 *   answers ids (the loan or lead id) and counts, initiating calls and chats answers counts and customer
 *   keys, the others answer agents, campaigns, dispositions, templates, numbers and workflows of the
 *   organization. A route that starts echoing personal data must seal its stored answer first.
 * - Workflow runs carry the customer key (a loan or lead id, a clear field of the record) and outcomes;
 *   speech requests carry counts and voice settings, never the text spoken; tokens name the token's
 *   subject (an API client), not a person the organization holds data about.
 * - Organizations' names and numbers, campaigns', agents' and templates' texts, dispositions and
 *   webhook settings are the organization's own data, not a data subject's.
 * - `ProcessStepFailed` (application) records a failed step's error message; the steps' errors name
 *   ids, never a customer's record.
 *
 * An event with no number to find its subject by (an inbound caller who hid their number, a customer
 * record without a phone number) still has its fields sealed: its subject is one of that conversation
 * (or customer) alone, keyed by the stream's id (`anonymousSubject`). No number finds it, so an erasure
 * by phone cannot reach it; an erasure by customer key, or retention, does.
 */
import { CLEAR_RECORD_FIELDS, ERASED } from './erased';

export type KeyKind = 'subject' | 'content';

/**
 * A field that reads in a shape of its own once erased (erased.ts): a transcript, an object, or a field
 * of each item of a list (`items`: the items stay, that field of each reads `ERASED`).
 */
export type ErasedShape = 'text' | 'transcript' | 'object' | 'items';

/**
 * A sealed field, by path: a top-level field of the event's data (`customerName`), one field of its
 * customer record (`record.first_name`, `changes.phone_number`: everything after the first dot is the
 * record's field name, which may hold dots itself), or one field of each item of a list
 * (`errors[].error_data.details`: the list, `[]`, then the field's path in every item, by dots).
 */
export type FieldSpec = { path: string } | { recordOf: 'record' | 'changes' };

export type FieldGroup = { key: KeyKind; fields: readonly FieldSpec[] };

export type SubjectSource =
  | { from: 'phone'; field: string }
  | { from: 'stream' }
  | { from: 'about'; stream: (data: Record<string, unknown>) => string | null };

export type PersonalFieldsRule = {
  subject: SubjectSource;
  groups: readonly FieldGroup[];
  /** Fields named like personal data that are not, with the reason (the coverage test reads these). */
  clear?: Readonly<Record<string, string>>;
};

const text = (...paths: string[]): FieldSpec[] => paths.map((path) => ({ path }));

/** What separates a list from the path of a field in each of its items. */
const ITEMS = '[].';

/**
 * The details of each of a failed chat's delivery errors (`ChatFailed.errors`), which may name the
 * customer's number: sealed item by item, each error's code, title, message and link staying readable.
 */
export const DELIVERY_ERROR_DETAILS = `errors${ITEMS}error_data.details`;

const ORGANIZATION_NUMBER = "the organization's own number";
const CAMPAIGN_NAME = "the organization's campaign";

export const PERSONAL_FIELDS: Readonly<Record<string, PersonalFieldsRule>> = {
  CustomerAdded: {
    subject: { from: 'phone', field: 'record.phone_number' },
    groups: [{ key: 'subject', fields: [{ recordOf: 'record' }] }],
  },
  // A changed number stays under the subject the customer was added with (docs/privacy.md).
  CustomerUpdated: { subject: { from: 'stream' }, groups: [{ key: 'subject', fields: [{ recordOf: 'changes' }] }] },
  CallQueued: {
    subject: { from: 'phone', field: 'to' },
    groups: [{ key: 'subject', fields: text('customerName', 'to') }],
    clear: { from: ORGANIZATION_NUMBER, campaignName: CAMPAIGN_NAME },
  },
  CallReceived: {
    subject: { from: 'phone', field: 'from' },
    groups: [{ key: 'subject', fields: text('customerName', 'from') }],
    clear: { to: ORGANIZATION_NUMBER, campaignName: CAMPAIGN_NAME },
  },
  CallEnded: {
    subject: { from: 'stream' },
    groups: [{ key: 'content', fields: text('transcript', 'summary', 'extractedData') }],
    clear: { disposition: "one of the organization's dispositions" },
  },
  CallMediaAttached: { subject: { from: 'stream' }, groups: [{ key: 'content', fields: text('transcript') }] },
  ChatRequested: {
    subject: { from: 'phone', field: 'to' },
    groups: [
      { key: 'subject', fields: text('customerName', 'to') },
      { key: 'content', fields: text('content') },
    ],
    clear: { campaignName: CAMPAIGN_NAME },
  },
  ChatReceived: {
    subject: { from: 'phone', field: 'from' },
    groups: [
      { key: 'subject', fields: text('customerName', 'from') },
      { key: 'content', fields: text('content') },
    ],
    clear: { to: ORGANIZATION_NUMBER, campaignName: CAMPAIGN_NAME },
  },
  ChatMessageAdded: { subject: { from: 'stream' }, groups: [{ key: 'content', fields: text('content') }] },
  // A delivery error's details may name the customer's number (ours do; a platform's are its own text):
  // who the chat was with, sealed with the subject key.
  ChatFailed: { subject: { from: 'stream' }, groups: [{ key: 'subject', fields: [{ path: DELIVERY_ERROR_DETAILS }] }] },
  ChatEnded: {
    subject: { from: 'stream' },
    groups: [{ key: 'content', fields: text('summary') }],
    clear: { disposition: "one of the organization's dispositions" },
  },
  // The body is the call's or chat's log entry as sent: who it was with, and what was said.
  WebhookDeliveryScheduled: {
    subject: { from: 'about', stream: (data) => aboutStream(data.subject) },
    groups: [{ key: 'subject', fields: text('body') }],
    clear: { subject: 'the call or chat the delivery is about, by id' },
  },
};

/** Event types with fields named like personal data that hold none (the coverage test reads these). */
const ORGANIZATION_OWN = "the organization's own configuration, no data subject's";
const ORGANIZATION_NUMBERS = "the organization's (or a provider's) own numbers";
const REPLICA = 'the replica that played the conversation before';

export const CLEAR_EVENT_TYPES: Readonly<Record<string, string>> = {
  NumbersBlacklisted: 'a number that must not be contacted outlives an erasure (kept on purpose)',
  NumbersRemovedFromBlacklist: 'numbers taken off the blacklist: the blacklist stays in the clear',
  IdempotentRequestCompleted: 'no idempotent route answers a name, a number or a message',
  IdempotentResponsePart: 'a part of such an answer',
  OrganizationRegistered: "the organization's own name",
  AccessTokenIssued: 'the subject of a token is an API client',
  AgentCreated: ORGANIZATION_OWN,
  CampaignCreated: ORGANIZATION_OWN,
  CampaignUpdated: ORGANIZATION_OWN,
  ChatTemplateCreated: `${ORGANIZATION_OWN} (placeholders, filled only in each chat's sealed content)`,
  DispositionCreated: ORGANIZATION_OWN,
  DispositionUpdated: ORGANIZATION_OWN,
  DispositionGroupCreated: ORGANIZATION_OWN,
  DispositionGroupUpdated: ORGANIZATION_OWN,
  WorkflowCreated: ORGANIZATION_OWN,
  WorkflowUpdated: ORGANIZATION_OWN,
  WorkflowRunStarted: `${ORGANIZATION_OWN}: the workflow's and campaign's names, and the customer's key (a clear field)`,
  InventorySeeded: ORGANIZATION_NUMBERS,
  NumbersStocked: ORGANIZATION_NUMBERS,
  NumberPurchased: ORGANIZATION_NUMBERS,
  NumberImported: ORGANIZATION_NUMBERS,
  InboundRoutingSet: ORGANIZATION_NUMBERS,
  InboundRoutingCleared: ORGANIZATION_NUMBERS,
  NumberReleased: ORGANIZATION_NUMBERS,
  CallAdopted: REPLICA,
  ChatAdopted: REPLICA,
};

function aboutStream(subject: unknown): string | null {
  const about = subject as { type?: unknown; id?: unknown } | null;
  if (!about || typeof about.id !== 'string' || (about.type !== 'call' && about.type !== 'chat')) return null;
  return `${about.type}-${about.id}`;
}

/** How a sealed field reads once its key is erased. */
export function erasedShapeOf(path: string): ErasedShape {
  if (itemPathOf(path)) return 'items';
  if (path === 'transcript') return 'transcript';
  if (path === 'extractedData') return 'object';
  return 'text';
}

/** The paths of a group's fields in this event's data: the record fields it holds that are personal, and the others present. */
export function pathsOf(group: FieldGroup, data: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const spec of group.fields) {
    if ('path' in spec) {
      const items = itemPathOf(spec.path);
      // A list's items are sealed all together, or not at all when it has none.
      if (items ? itemsOf(data, items.list).length > 0 : data[spec.path] !== undefined) paths.push(spec.path);
      continue;
    }
    const record = data[spec.recordOf];
    if (typeof record !== 'object' || record === null) continue;
    for (const field in record) {
      const value = (record as Record<string, unknown>)[field];
      // A null change removes a field: it is no data about anyone.
      if (!CLEAR_RECORD_FIELDS.has(field) && value !== null && value !== undefined)
        paths.push(recordPath(spec.recordOf, field));
    }
  }
  return paths;
}

/**
 * `record.first_name`: the path of a record's field, one string per field made once, since sealing
 * looks paths up (bounded: a record's extra fields are the client's to name).
 */
const recordPaths = { record: new Map<string, string>(), changes: new Map<string, string>() };
const MAX_RECORD_PATHS = 10_000;
function recordPath(recordOf: 'record' | 'changes', field: string): string {
  const known = recordPaths[recordOf];
  let path = known.get(field);
  if (path === undefined) {
    if (known.size >= MAX_RECORD_PATHS) known.clear();
    path = `${recordOf}.${field}`;
    known.set(field, path);
  }
  return path;
}

/** The top-level fields a rule seals (all of a record's personal fields count as the record). */
export const sealedTopLevel = (rule: PersonalFieldsRule): Set<string> =>
  new Set(
    rule.groups.flatMap((g) =>
      g.fields.map((spec) => ('path' in spec ? (itemPathOf(spec.path)?.list ?? spec.path) : spec.recordOf)),
    ),
  );

/** Digits of a phone number; '' when it has none. */
export const phoneDigits = (value: unknown): string => (typeof value === 'string' ? value.replace(/\D/g, '') : '');

/** The subject of a conversation (or customer) that has no number: that stream alone. */
export const anonymousSubject = (streamId: string): string => `stream:${streamId}`;

/** A path's value in the data: a top-level field, or a field of a record (after the first dot). */
export function valueAt(data: Record<string, unknown>, path: string): unknown {
  const dot = path.indexOf('.');
  if (dot < 0) return data[path];
  const record = data[path.slice(0, dot)];
  return typeof record === 'object' && record !== null
    ? (record as Record<string, unknown>)[path.slice(dot + 1)]
    : undefined;
}

type ItemPath = { list: string; field: readonly string[] };

/** A path to a field of each item of a list (`errors[].error_data.details`), split; null for any other path. */
export function itemPathOf(path: string): ItemPath | null {
  const at = path.indexOf(ITEMS);
  return at < 0 ? null : { list: path.slice(0, at), field: path.slice(at + ITEMS.length).split('.') };
}

type Item = Record<string, unknown>;
const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);
const itemsOf = (data: Record<string, unknown>, list: string): unknown[] =>
  Array.isArray(data[list]) ? (data[list] as unknown[]) : [];

/** The field's value in each item of the list (undefined where an item has none). */
function itemValues(data: Record<string, unknown>, { list, field }: ItemPath): unknown[] {
  return itemsOf(data, list).map((item) =>
    field.reduce<unknown>((at, name) => (isItem(at) ? at[name] : undefined), item),
  );
}

/** An item copied along the field's path (its keys in their order), the field set to `value` (undefined: taken out). */
function withField(item: unknown, field: readonly string[], value: unknown): unknown {
  if (!isItem(item)) return item;
  const [name, ...rest] = field as [string, ...string[]];
  const copy: Item = { ...item };
  if (rest.length > 0) {
    if (!isItem(copy[name]) && value === undefined) return item;
    copy[name] = withField(isItem(copy[name]) ? copy[name] : {}, rest, value);
  } else if (value === undefined) delete copy[name];
  else copy[name] = value;
  return copy;
}

/**
 * Takes the field out of each item of the list in `data` (the items are copied, never changed in
 * place) and answers its values in order, null where an item had none.
 */
export function takeOutOfItems(data: Record<string, unknown>, path: string): unknown[] {
  const items = itemPathOf(path)!;
  const values = itemValues(data, items).map((value) => value ?? null);
  if (Array.isArray(data[items.list]))
    data[items.list] = itemsOf(data, items.list).map((item) => withField(item, items.field, undefined));
  return values;
}

/** Puts the values `takeOutOfItems` took back into the items of the list, in order (null: the item had none). */
export function putBackIntoItems(data: Record<string, unknown>, path: string, values: unknown): void {
  const items = itemPathOf(path)!;
  if (!Array.isArray(data[items.list]) || !Array.isArray(values)) return;
  data[items.list] = itemsOf(data, items.list).map((item, i) =>
    values[i] === null || values[i] === undefined ? item : withField(item, items.field, values[i]),
  );
}

/** The values an erased field of each item reads as: `ERASED` in every item of the list. */
export const erasedItemValues = (data: Record<string, unknown>, path: string): unknown[] =>
  itemsOf(data, itemPathOf(path)!.list).map(() => ERASED);
