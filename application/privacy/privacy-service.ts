/**
 * A data subject's rights over what an organization holds about them (docs/privacy.md): erasure
 * (DPDP Act 2023 s. 12, GDPR art. 17) and export (DPDP s. 11, GDPR art. 15 and 20). A subject is named
 * by a phone number, or by a customer key (`loan_id`, `lead_id`) in any of the organization's campaigns.
 *
 * Erasure is requested (recorded) first, then takes its steps (erasure-completion.ts): deletes the
 * subjects' keys, so every personal field sealed with them reads as a placeholder from then on, deletes
 * their recordings, records `PersonalDataErased`, naming the documents the read models turn into what a
 * replay now builds, waits for them, compacts the read store and records the erasure completed.
 * Erasing again changes nothing. Only the caller's organization is ever looked at.
 */
import { blacklistKey, normalizePhoneNumber } from '../../domain/blacklist/blacklist';
import { customerStreamId } from '../../domain/customers/customer';
import { customerDocumentId } from '../../domain/customers/keys';
import { ERASED } from '../../domain/privacy/erased';
import {
  privacyDecider,
  privacyStreamId,
  type ErasedConversations,
  type ErasureLookup,
  type KeptItem,
} from '../../domain/privacy/erasure';
import { invalid, notFound } from '../../domain/shared/errors';
import { PERSONAL_FIELDS } from '../../domain/privacy/personal-fields';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { SubjectDocument } from '../../projections/privacy/subject-documents';
import type { CommandHandler } from '../command-handler';
import type { KeyStore } from '../ports/key-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { ErasureUnfinishedError, type ErasureCompletion } from './erasure-completion';
import { exportOf, findAll, type SubjectExport } from './export-data';
import type { FoundSubjects, PrivacyCollections } from './privacy-collections';

/** How a request names the subject: exactly one of these. */
export type SubjectTarget = { phone: string } | { loan_id: string } | { lead_id: string };

export type PrivacyDeps = {
  commands: CommandHandler;
  env: ServiceEnvironment;
  keys: KeyStore;
  collections: PrivacyCollections;
  /** Takes an erasure's steps once it is recorded, and finishes those a cut run left. */
  completion: ErasureCompletion;
};

export type ErasureAnswer = {
  /** The subjects this request erased (0: every one it found was erased before). */
  subjects: number;
  customers: number;
  calls: number;
  chats: number;
  recordings_deleted: number;
  kept: KeptItem[];
};

/** What an erasure leaves, and why the law lets it (docs/privacy.md, "What is kept"). */
export const KEPT: readonly KeptItem[] = [
  {
    what: 'blacklist entries of the number',
    why: 'a number that must never be called or written to again stays listed: a legal obligation and the subject’s own request',
  },
  {
    what: 'the loan or lead identifiers, amounts, dates, payment status and language of customer records',
    why: 'no longer personal once the name and number are gone; kept for the lender’s accounts (legal obligation)',
  },
  {
    what: 'counts and analytics figures (statuses, durations, dispositions, per day, campaign and agent)',
    why: 'they hold no personal data',
  },
  {
    what: 'the events themselves, their personal fields sealed with the deleted keys',
    why: 'the audit trail of what was decided and when; nothing personal in them can be read any more',
  },
];

/** The subjects a request names, what the organization holds of them, and the numbers it names. */
const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];

/**
 * The documents of an organization's conversations an erasure names, besides the calls and chats
 * themselves: the calls' recordings and transcripts, and the audit index entries of the streams'
 * events of the types `sealed` picks (those with the fields the erasure's keys sealed).
 */
export async function conversationDocuments(
  collections: Pick<PrivacyCollections, 'transcripts' | 'recordings' | 'eventIndex'>,
  organizationId: string,
  conversations: { calls: readonly string[]; streams: readonly string[] },
  sealed: (eventType: string) => boolean,
): Promise<Pick<ErasedConversations, 'recordingIds' | 'transcriptIds' | 'auditPositions'>> {
  const org = { organizationId };
  const { calls, streams } = conversations;
  const transcriptIds = (await findAll(collections.transcripts, org, 'callId', calls)).map((t) => t.id);
  const recordingIds = (await findAll(collections.recordings, org, 'callId', calls)).map((r) => r.id);
  const indexed = collections.eventIndex ? await findAll(collections.eventIndex, org, 'stream', streams) : [];
  const auditPositions = indexed.filter((e) => sealed(e.type)).map((e) => e.position);
  return { recordingIds, transcriptIds, auditPositions };
}

export class PrivacyService {
  constructor(private readonly deps: PrivacyDeps) {}

  async erase(ctx: RequestContext, target: SubjectTarget): Promise<ErasureAnswer> {
    // A cut erasure of the organization is finished first: until then its subjects' documents are
    // half masked, and nothing found now could be trusted to be all there is.
    await this.deps.completion.finishBeforeErasure(ctx.organizationId);
    const found = await this.find(ctx, target);
    if (found.subjects.length === 0) throw notFound('No personal data of this subject was found');
    const { collections, commands, env } = this.deps;
    const of = (kind: SubjectDocument['kind']) =>
      unique(found.documents.filter((d) => d.kind === kind).map((d) => d.ref));
    const calls = of('call');
    const chats = of('chat');
    const customers = found.documents
      .filter((d) => d.kind === 'customer')
      .map((d) => ({ campaignId: d.campaignId, customerKey: d.ref }));
    const streams = unique(found.documents.map((d) => d.stream));
    const { recordingIds, transcriptIds, auditPositions } = await conversationDocuments(
      collections,
      ctx.organizationId,
      { calls, streams },
      (type) => PERSONAL_FIELDS[type] !== undefined,
    );

    // Requested before any of its steps, so that whatever cuts them, what it names is known and its
    // steps are taken again (erasure-completion.ts) until its completion is recorded.
    const erasureId = env.newId();
    const result = await commands.handle(
      privacyDecider,
      privacyStreamId(ctx.organizationId),
      {
        type: 'EraseSubjects',
        organizationId: ctx.organizationId,
        erasureId,
        subjectIds: found.subjects,
        lookup: found.lookup,
        customers,
        calls,
        chats,
        recordingIds,
        transcriptIds,
        auditPositions,
        webhookDeliveries: of('webhookDelivery'),
        kept: [...KEPT],
        at: env.now().toISOString(),
      },
      { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId },
    );
    const recorded = result.events.length > 0;
    const deleted = recorded
      ? await this.deps.completion.finish({
          id: erasureId,
          organizationId: ctx.organizationId,
          subjectIds: found.subjects,
          recordingIds,
        })
      : 0;
    return {
      subjects: recorded ? found.subjects.length : 0,
      customers: customers.length,
      calls: calls.length,
      chats: chats.length,
      recordings_deleted: deleted,
      kept: [...KEPT],
    };
  }

  /** Everything the organization holds about the subject; after an erasure, what is left of it. */
  async export(ctx: RequestContext, target: SubjectTarget): Promise<SubjectExport> {
    // Until an erasure is completed its subjects' documents may still be in the clear: never answered.
    if (await this.deps.completion.pendingIn(ctx.organizationId)) throw new ErasureUnfinishedError();
    const found = await this.find(ctx, target);
    const data = await exportOf(ctx.organizationId, found, this.deps.collections);
    const empty =
      data.customers.length === 0 && data.calls.length === 0 && data.chats.length === 0 && data.blacklist.length === 0;
    if (empty) throw notFound('No personal data of this subject was found');
    return data;
  }

  /** The organization's subjects a request names, and their documents. */
  private async find(ctx: RequestContext, target: SubjectTarget): Promise<FoundSubjects> {
    const { collections, keys } = this.deps;
    const organizationId = ctx.organizationId;
    let lookup: ErasureLookup;
    let customers: CustomerDocument[];
    const subjects = new Set<string>();
    if ('phone' in target) {
      lookup = 'phone';
      const normalized = normalizePhoneNumber(target.phone);
      if (normalized === null) throw invalid('Validation failed', { errors: ['phone must be 7 to 15 digits'] });
      const digits = blacklistKey(normalized);
      const subject = await keys.subjectOfPhone(organizationId, digits);
      if (subject) subjects.add(subject);
      customers = await collections.customers.find({
        where: { organizationId, phone_number: { in: [digits, `+${digits}`] } },
      });
    } else {
      lookup = 'loan_id' in target ? 'loan_id' : 'lead_id';
      const expected = ctx.organizationType === 'collection' ? 'loan_id' : 'lead_id';
      if (lookup !== expected)
        throw invalid('Validation failed', { errors: [`customers of this organization are named by ${expected}`] });
      const key = 'loan_id' in target ? target.loan_id : (target as { lead_id: string }).lead_id;
      customers = await collections.customers.find({ where: { organizationId, customerId: key } });
    }
    const streams = customers.map((c) => customerStreamId(c.campaignId, c.customerId));
    for (const d of await findAll(collections.subjectDocuments, {}, 'stream', streams))
      if (d.organizationId === organizationId) subjects.add(d.subject);
    const documents = await findAll(collections.subjectDocuments, { organizationId }, 'subject', [...subjects]);
    // A customer named directly is exported too, even one whose record was never sealed.
    const known = new Set(
      documents.filter((d) => d.kind === 'customer').map((d) => customerDocumentId(d.campaignId, d.ref)),
    );
    const numbers = unique([
      ...('phone' in target ? [blacklistKey(normalizePhoneNumber(target.phone)!)] : []),
      ...customers
        .map((c) => c.phone_number)
        .filter((n) => n !== '' && n !== ERASED)
        .map((n) => n.replace(/^\+/, '')),
    ]);
    return {
      lookup,
      subjects: [...subjects],
      documents,
      customers: customers.filter((c) => !known.has(c.id)),
      numbers,
    };
  }
}
