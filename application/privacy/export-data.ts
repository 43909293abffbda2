/**
 * The export of a data subject's data (docs/privacy.md, "Export"): every customer record of theirs in
 * any campaign, their calls (log entries with transcripts and recording ids) and chats (log entries
 * with their messages), the blacklist entries of their numbers and the webhook deliveries about them,
 * read from the read models of the caller's organization only. After an erasure it shows what is left:
 * the clear fields, and placeholders where personal data was.
 */
import { blacklistDocumentId } from '../../domain/blacklist/blacklist';
import { customerDocumentId } from '../../domain/customers/keys';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { CallLogDocument } from '../../projections/logs/call-logs';
import type { ChatLogDocument } from '../../projections/logs/chat-logs';
import { entryView } from '../logs/log-service';
import type { Condition, ReadCollection } from '../ports/read-store';
import type { FoundSubjects, PrivacyCollections } from './privacy-collections';

export type SubjectExport = {
  subjects: number;
  customers: Record<string, unknown>[];
  calls: Record<string, unknown>[];
  chats: Record<string, unknown>[];
  recordings: string[];
  blacklist: { number: string; name: string | null; addedAt: string }[];
  webhook_deliveries: { id: string; event: string; status: string; created_at: string }[];
};

/** Ids per `in` filter: a query stays well within what every store takes in one statement. */
const CHUNK = 500;

export async function findAll<T>(
  collection: ReadCollection<T>,
  where: Record<string, Condition>,
  field: string,
  values: readonly string[],
): Promise<T[]> {
  const found: T[] = [];
  for (let i = 0; i < values.length; i += CHUNK)
    found.push(...(await collection.find({ where: { ...where, [field]: { in: values.slice(i, i + CHUNK) } } })));
  return found;
}

const customerView = (c: CustomerDocument) => ({
  campaign_id: c.campaignId,
  customer_id: c.customerId,
  record: c.data,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

export async function exportOf(
  organizationId: string,
  found: FoundSubjects,
  collections: PrivacyCollections,
): Promise<SubjectExport> {
  const owned = <T extends { organizationId: string | null }>(doc: T | null | undefined): doc is T =>
    !!doc && doc.organizationId === organizationId;
  const refs = (kind: string) => found.documents.filter((d) => d.kind === kind).map((d) => d.ref);

  const customerIds = found.documents
    .filter((d) => d.kind === 'customer')
    .map((d) => customerDocumentId(d.campaignId, d.ref));
  const stored = await collections.customers.getStored(customerIds);
  const customers = [...customerIds.map((id) => stored.get(id)?.doc), ...found.customers].filter(owned);

  const entries = await collections.logs.getStored([...refs('call'), ...refs('chat')]);
  const logs = [...entries.values()].map((s) => s.doc).filter(owned);
  const callDocs = logs.filter((d): d is CallLogDocument => d.type === 'call');
  const chatDocs = logs.filter((d): d is ChatLogDocument => d.type === 'chat');
  const transcripts = await collections.transcripts.getStored(callDocs.map((c) => c.transcript_id).filter((t) => t));
  const calls = callDocs.map((c) => ({
    ...entryView(c),
    transcript: owned(transcripts.get(c.transcript_id)?.doc) ? transcripts.get(c.transcript_id)!.doc!.entries : [],
  }));
  const chats = chatDocs.map((c) => entryView(c));
  const recordings = (
    await findAll(
      collections.recordings,
      { organizationId },
      'callId',
      callDocs.map((c) => c.id),
    )
  ).map((r) => r.id);

  const listed = await collections.blacklist.getStored(
    found.numbers.map((n) => blacklistDocumentId(organizationId, n)),
  );
  const blacklist = [...listed.values()]
    .map((s) => s.doc)
    .filter(owned)
    .map((b) => ({ number: b.number, name: b.name, addedAt: b.addedAt }));

  const deliveries = await collections.webhookDeliveries.getStored(refs('webhookDelivery'));
  const webhookDeliveries = [...deliveries.values()]
    .map((s) => s.doc)
    .filter(owned)
    .map((d) => ({ id: d.id, event: d.event, status: d.status, created_at: d.createdAt }));

  return {
    subjects: found.subjects.length,
    customers: customers.map(customerView),
    calls,
    chats,
    recordings,
    blacklist,
    webhook_deliveries: webhookDeliveries,
  };
}
