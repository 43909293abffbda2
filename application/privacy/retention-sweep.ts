/**
 * The retention sweep (docs/privacy.md, "Retention"): for each organization that keeps conversation
 * content for a number of days, the calls and chats that ended before `now - days` and whose content
 * is not erased yet have it erased, a batch at a time:
 *
 * 1. their content keys are deleted (`KeyStore.eraseContent`): from then on their transcripts,
 *    summaries, extracted data and messages read as placeholders in every read of the event log;
 * 2. their recordings are deleted from the blob store;
 * 3. `ConversationContentErased` (reason `retention`) is recorded on the organization's privacy stream,
 *    naming the documents each read model masks to what a replay now builds.
 *
 * Safe to repeat and to cut anywhere: a conversation counts as erased only once the event is recorded
 * (the candidates read model follows it), so a sweep that stopped after step 1 or 2 leaves its batch
 * to the next one, which deletes the keys again (nothing left to delete), the recordings not deleted
 * yet, and records the event. One replica at a time runs it (the leased job `privacy-retention`).
 */
import { callStreamId } from '../../domain/calls/call';
import { PERSONAL_FIELDS } from '../../domain/privacy/personal-fields';
import { privacyDecider, privacyStreamId } from '../../domain/privacy/erasure';
import type { RetentionCandidateDocument } from '../../projections/privacy/retention-candidates';
import type { RetentionSettingDocument } from '../../projections/privacy/retention-settings';
import { chatStreamId } from '../chats/chat-sending';
import type { CommandHandler } from '../command-handler';
import type { BlobStore } from '../ports/blob-store';
import type { KeyStore } from '../ports/key-store';
import type { ReadCollection } from '../ports/read-store';
import type { ServiceEnvironment } from '../request-context';
import type { PrivacyCollections } from './privacy-collections';
import { conversationDocuments } from './privacy-service';
import { deleteRecordings } from './recordings';

/** Conversations erased per event: keeps each event and each `in` query of the read models small. */
export const RETENTION_BATCH = 200;
const DAY_MS = 86_400_000;

export type RetentionSweepDeps = {
  commands: CommandHandler;
  env: ServiceEnvironment;
  keys: Pick<KeyStore, 'eraseContent'>;
  recordings: BlobStore;
  collections: Pick<PrivacyCollections, 'transcripts' | 'recordings' | 'eventIndex'> & {
    settings: ReadCollection<RetentionSettingDocument>;
    candidates: ReadCollection<RetentionCandidateDocument>;
  };
  /** Leaves no former version of an erased document in the read store's files (`ReadStore.compact`). */
  compact: () => Promise<void>;
  /** Resolves once every read model includes the event at `position`, however long that takes. */
  readModelsInclude: (position: number) => Promise<void>;
  batch?: number;
};

/** An event type with fields a conversation's content key seals. */
const sealsContent = (type: string): boolean =>
  PERSONAL_FIELDS[type]?.groups.some((group) => group.key === 'content') ?? false;

const streamOf = (c: RetentionCandidateDocument) => (c.kind === 'call' ? callStreamId(c.ref) : chatStreamId(c.ref));

/** One sweep over every organization with a retention; answers how many conversations it erased. */
export async function sweepRetention(deps: RetentionSweepDeps): Promise<number> {
  const now = deps.env.now();
  let erased = 0;
  for (const setting of await deps.collections.settings.find({ sort: { field: 'organizationId', order: 'asc' } })) {
    const cutoff = new Date(now.getTime() - setting.days * DAY_MS).toISOString();
    erased += await sweepOrganization(deps, setting.organizationId, cutoff, now);
  }
  // As after a subject's erasure: no earlier version of a masked document stays in the store's files.
  if (erased > 0) await deps.compact();
  return erased;
}

async function sweepOrganization(
  deps: RetentionSweepDeps,
  organizationId: string,
  cutoff: string,
  now: Date,
): Promise<number> {
  const batch = deps.batch ?? RETENTION_BATCH;
  // Erased in this sweep: a read model that has not caught up with the event yet shows them again.
  const done = new Set<string>();
  for (;;) {
    const found = await deps.collections.candidates.find({
      where: { organizationId, erased: false },
      range: { field: 'endedAt', lte: cutoff },
      sort: { field: 'endedAt', order: 'asc' },
      limit: batch,
    });
    const due = found.filter((c) => !done.has(c.id));
    if (due.length === 0) return done.size;
    await eraseContent(deps, organizationId, due, now);
    for (const c of due) done.add(c.id);
    if (found.length < batch) return done.size;
  }
}

async function eraseContent(
  deps: RetentionSweepDeps,
  organizationId: string,
  due: readonly RetentionCandidateDocument[],
  now: Date,
): Promise<void> {
  const calls = due.filter((c) => c.kind === 'call').map((c) => c.ref);
  const chats = due.filter((c) => c.kind === 'chat').map((c) => c.ref);
  const streams = due.map(streamOf);
  const documents = await conversationDocuments(deps.collections, organizationId, { calls, streams }, sealsContent);
  // Keys first: whatever happens next, nothing they sealed can be read any more; the event comes last,
  // so a sweep cut before it leaves these conversations to the next one.
  await deps.keys.eraseContent(streams);
  await deleteRecordings(deps.recordings, documents.recordingIds);
  const result = await deps.commands.handle(
    privacyDecider,
    privacyStreamId(organizationId),
    {
      type: 'EraseConversationContent',
      organizationId,
      calls,
      chats,
      ...documents,
      reason: 'retention',
      at: now.toISOString(),
    },
    { organizationId, actor: 'privacy-retention', requestId: `privacy-retention-${now.toISOString()}` },
  );
  // Not a bounded wait: the compaction after the sweep must come after the masks.
  await deps.readModelsInclude(result.position);
}
