/**
 * Erasure and retention of personal data (docs/privacy.md): one stream per organization records what
 * was erased, why some things were kept, and how long conversation content is kept. Erasing a data subject deletes its keys (outside the event log), so every
 * personal field sealed with them reads as a placeholder from then on; the events here tell the read
 * models which of their documents to turn into what a replay now builds, and tell an auditor that it
 * happened. They hold no personal data themselves: ids, counts and reasons, never a name or a number.
 *
 * - `PersonalDataErasureRequested`: a subject's request (DPDP Act 2023, GDPR art. 17), found by phone
 *   number or by a customer key, recorded before any of its steps, with all it names: a cut erasure is
 *   finished from it. Erasing subjects already erased, or being erased, records nothing.
 * - `PersonalDataErased`: the same, once the subjects' keys and recordings are deleted; the read models
 *   mask what it names (an event sealed before the keys went is applied before it, so is masked too).
 * - `PersonalDataErasureCompleted`: every step taken (the read models masked, the read store
 *   compacted); until then the erasure is unfinished.
 * - `ConversationContentErased`: the content of conversations (transcripts, summaries, extracted data,
 *   chat messages, recordings) whose retention ran out; who the conversations were with stays.
 * - `RetentionSet`: how many days after its end a conversation's content is kept (null: for ever, the
 *   default). The retention sweep (application/privacy/retention-sweep.ts) erases what outlived it.
 *
 * The document ids each event names (customers, calls, chats, transcripts, webhook deliveries, audit
 * index entries) are those the subjects' read-model documents had when it was recorded, so a replay
 * masks the same documents.
 */
import { assertNever, type Decider } from '../shared/decider';
import { invalid } from '../shared/errors';

export const privacyStreamId = (organizationId: string) => `privacy-${organizationId}`;

/** How the subject was named in the request. */
export type ErasureLookup = 'phone' | 'loan_id' | 'lead_id';

/** What an erasure leaves in place, and the reason the law allows it. */
export type KeptItem = { what: string; why: string };

export type ErasedCustomer = { campaignId: string; customerKey: string };

/** The documents of conversations an erasure touches, by id. */
export type ErasedConversations = {
  calls: string[];
  chats: string[];
  recordingIds: string[];
  transcriptIds: string[];
  /**
   * The positions of those streams' events with personal fields, where the audit keeps an index of
   * copies of events (over an event store that cannot search its events); empty otherwise.
   */
  auditPositions: number[];
};

export type PersonalDataErased = {
  type: 'PersonalDataErased';
  data: {
    organizationId: string;
    /** The erasure's id in its three events (absent in erasures recorded in one event, before they had three). */
    erasureId?: string;
    subjectIds: string[];
    lookup: ErasureLookup;
    customers: ErasedCustomer[];
    /** Webhook deliveries whose body named the subjects. */
    webhookDeliveries: string[];
    kept: KeptItem[];
    at: string;
  } & ErasedConversations;
};

export type ConversationContentErased = {
  type: 'ConversationContentErased';
  data: { organizationId: string; reason: 'retention'; at: string } & ErasedConversations;
};

export type ErasureEvent = PersonalDataErased | ConversationContentErased;

export type PersonalDataErasureRequested = {
  type: 'PersonalDataErasureRequested';
  data: PersonalDataErased['data'] & { erasureId: string };
};

export type PersonalDataErasureCompleted = {
  type: 'PersonalDataErasureCompleted';
  data: { organizationId: string; erasureId: string; at: string };
};

/** Days a conversation's content is kept after its end: 1 to 3650 (ten years); null keeps it for ever. */
export const RETENTION_DAYS = { min: 1, max: 3650 } as const;

export type RetentionSet = {
  type: 'RetentionSet';
  data: { organizationId: string; days: number | null; at: string };
};

export type PrivacyEvent = ErasureEvent | PersonalDataErasureRequested | PersonalDataErasureCompleted | RetentionSet;

export const erasureEventTypes = [
  'PersonalDataErased',
  'ConversationContentErased',
] as const satisfies readonly ErasureEvent['type'][];

export type PrivacyCommand =
  | ({ type: 'EraseSubjects' } & PersonalDataErasureRequested['data'])
  /** The erasure's keys and recordings are deleted: the read models may mask what it names. */
  | ({ type: 'RecordErasure' } & PersonalDataErasureCompleted['data'])
  | ({ type: 'CompleteErasure' } & PersonalDataErasureCompleted['data'])
  | ({ type: 'EraseConversationContent' } & ConversationContentErased['data'])
  | ({ type: 'SetRetention' } & RetentionSet['data']);

/** An erasure requested and not completed yet: what it names, and whether `PersonalDataErased` is recorded. */
export type UnfinishedErasure = { data: PersonalDataErasureRequested['data']; erased: boolean };

/**
 * The subjects erased or being erased (an erased subject's number, seen again, is a new subject), the
 * erasures not completed yet, by id, and the organization's retention of conversation content in days
 * (null: kept for ever).
 */
export type PrivacyState = {
  erasedSubjects: ReadonlySet<string>;
  unfinished: ReadonlyMap<string, UnfinishedErasure>;
  retentionDays: number | null;
};

const validRetention = (days: number | null) =>
  days === null || (Number.isInteger(days) && days >= RETENTION_DAYS.min && days <= RETENTION_DAYS.max);

export function decide(command: PrivacyCommand, state: PrivacyState): PrivacyEvent[] {
  switch (command.type) {
    case 'EraseSubjects': {
      const { type: _type, ...data } = command;
      if (data.subjectIds.length === 0) throw invalid('An erasure names at least one subject');
      // Deleting a key twice changes nothing; so does recording its erasure twice.
      if (data.subjectIds.every((id) => state.erasedSubjects.has(id))) return [];
      return [{ type: 'PersonalDataErasureRequested', data }];
    }
    case 'RecordErasure': {
      const unfinished = state.unfinished.get(command.erasureId);
      if (!unfinished || unfinished.erased) return [];
      return [{ type: 'PersonalDataErased', data: { ...unfinished.data, at: command.at } }];
    }
    case 'CompleteErasure': {
      const { type: _type, ...data } = command;
      return state.unfinished.get(data.erasureId)?.erased ? [{ type: 'PersonalDataErasureCompleted', data }] : [];
    }
    case 'EraseConversationContent': {
      const { type: _type, ...data } = command;
      const nothing = data.calls.length === 0 && data.chats.length === 0 && data.recordingIds.length === 0;
      return nothing ? [] : [{ type: 'ConversationContentErased', data }];
    }
    case 'SetRetention': {
      const { type: _type, ...data } = command;
      if (!validRetention(data.days))
        throw invalid('Validation failed', {
          errors: [`days must be an integer from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null`],
        });
      // Setting the retention it already has changes nothing.
      return data.days === state.retentionDays ? [] : [{ type: 'RetentionSet', data }];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: PrivacyState, event: PrivacyEvent): PrivacyState {
  switch (event.type) {
    case 'PersonalDataErasureRequested': {
      const erasedSubjects = new Set([...state.erasedSubjects, ...event.data.subjectIds]);
      const requested: UnfinishedErasure = { data: event.data, erased: false };
      return {
        ...state,
        erasedSubjects,
        unfinished: new Map([...state.unfinished, [event.data.erasureId, requested]]),
      };
    }
    case 'PersonalDataErased': {
      const erasedSubjects = new Set([...state.erasedSubjects, ...event.data.subjectIds]);
      const { erasureId } = event.data;
      const unfinished = erasureId === undefined ? undefined : state.unfinished.get(erasureId);
      if (!unfinished) return { ...state, erasedSubjects };
      return {
        ...state,
        erasedSubjects,
        unfinished: new Map([...state.unfinished, [erasureId!, { ...unfinished, erased: true }]]),
      };
    }
    case 'PersonalDataErasureCompleted': {
      const unfinished = new Map(state.unfinished);
      unfinished.delete(event.data.erasureId);
      return { ...state, unfinished };
    }
    case 'ConversationContentErased':
      return state;
    case 'RetentionSet':
      return { ...state, retentionDays: event.data.days };
    default:
      return assertNever(event);
  }
}

export const privacyDecider: Decider<PrivacyCommand, PrivacyEvent, PrivacyState> = {
  initialState: () => ({ erasedSubjects: new Set(), unfinished: new Map(), retentionDays: null }),
  evolve,
  decide,
};
