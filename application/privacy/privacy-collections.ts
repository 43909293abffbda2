/**
 * What the privacy services read (the read models that hold a subject's data) and what a lookup of a
 * subject finds: shared by erasure, export and retention.
 */
import type { ErasureLookup } from '../../domain/privacy/erasure';
import type { EventIndexDocument } from '../../projections/audit/event-index';
import type { BlacklistDocument } from '../../projections/blacklist/blacklist';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { CallLogDocument } from '../../projections/logs/call-logs';
import type { ChatLogDocument } from '../../projections/logs/chat-logs';
import type { SubjectDocument } from '../../projections/privacy/subject-documents';
import type { RecordingDocument } from '../../projections/recordings/recordings';
import type { TranscriptDocument } from '../../projections/transcripts/transcripts';
import type { WebhookDeliveryDocument } from '../../projections/webhooks/webhook-deliveries';
import type { ReadCollection } from '../ports/read-store';

export type PrivacyCollections = {
  subjectDocuments: ReadCollection<SubjectDocument>;
  customers: ReadCollection<CustomerDocument>;
  logs: ReadCollection<CallLogDocument | ChatLogDocument>;
  transcripts: ReadCollection<TranscriptDocument>;
  recordings: ReadCollection<RecordingDocument>;
  blacklist: ReadCollection<BlacklistDocument>;
  webhookDeliveries: ReadCollection<WebhookDeliveryDocument>;
  /** The audit's event index, where the audit keeps one (over an event store that cannot search its events). */
  eventIndex?: ReadCollection<EventIndexDocument>;
};

export type FoundSubjects = {
  lookup: ErasureLookup;
  subjects: string[];
  documents: SubjectDocument[];
  /** Customers the request names directly (by number or key), with or without a subject. */
  customers: CustomerDocument[];
  /** Digits of the numbers the subject is known by (for the blacklist). */
  numbers: string[];
};
