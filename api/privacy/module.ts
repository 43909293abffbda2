/**
 * A data subject's rights (docs/privacy.md): erasure and export; and the retention of conversation
 * content, which a leased job (`privacy-retention`) sweeps. It owns the index of which aggregates hold
 * each subject's personal data, the organizations' retentions and the conversations a retention may
 * erase, and reads the read models of the features before it (customers, logs and media, the
 * blacklist, webhook deliveries), whose projections follow its erasures. Over an event store that
 * cannot search its events the audit keeps an event index, which erasures mask too.
 */
import { canSearch } from '../../application/audit/event-store-audit';
import { ErasureCompletion, ErasureUnfinishedError } from '../../application/privacy/erasure-completion';
import { PrivacyService } from '../../application/privacy/privacy-service';
import { RetentionService } from '../../application/privacy/retention-service';
import { sweepRetention } from '../../application/privacy/retention-sweep';
import { resumeAfterRestart } from '../../application/resume-after-restart';
import { eventIndexProjection, type EventIndexDocument } from '../../projections/audit/event-index';
import { blacklistProjection, type BlacklistDocument } from '../../projections/blacklist/blacklist';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { callLogsProjection, type CallLogDocument } from '../../projections/logs/call-logs';
import { chatLogsProjection, type ChatLogDocument } from '../../projections/logs/chat-logs';
import {
  retentionCandidatesProjection,
  type RetentionCandidateDocument,
} from '../../projections/privacy/retention-candidates';
import {
  retentionSettingsProjection,
  type RetentionSettingDocument,
} from '../../projections/privacy/retention-settings';
import { subjectDocumentsProjection, type SubjectDocument } from '../../projections/privacy/subject-documents';
import {
  unfinishedErasuresProjection,
  type UnfinishedErasureDocument,
} from '../../projections/privacy/unfinished-erasures';
import { recordingsProjection, type RecordingDocument } from '../../projections/recordings/recordings';
import { transcriptsProjection, type TranscriptDocument } from '../../projections/transcripts/transcripts';
import {
  webhookDeliveriesProjection,
  type WebhookDeliveryDocument,
} from '../../projections/webhooks/webhook-deliveries';
import type { Logger } from '../../application/ports/logger';
import type { ModuleDefinition } from '../module';
import { privacyRoutes } from './router';

/** How long a start that could not finish the erasures a cut run left waits before it tries again. */
const FINISH_RETRY_MS = 2000;

/** Finishes, in the background, the erasures a run cut before this process started; tries again until it can. */
async function finishAtStart(completion: ErasureCompletion, logger: Logger, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      return await completion.finishAtStart();
    } catch (error) {
      if (signal.aborted) return;
      logger.warn('privacy: unfinished erasures could not be finished yet', { error: String(error) });
      await new Promise((resolve) => setTimeout(resolve, FINISH_RETRY_MS).unref());
    }
  }
}

const READS = [
  subjectDocumentsProjection,
  unfinishedErasuresProjection,
  retentionSettingsProjection,
  customersProjection,
  callLogsProjection,
  chatLogsProjection,
  transcriptsProjection,
  recordingsProjection,
  blacklistProjection,
  webhookDeliveriesProjection,
];

/** The module; `withEventIndex`: the audit keeps its event index, whose entries an erasure names too. */
function privacy(withEventIndex: boolean): ModuleDefinition {
  return {
    name: 'privacy',
    projections: [
      subjectDocumentsProjection,
      unfinishedErasuresProjection,
      retentionSettingsProjection,
      retentionCandidatesProjection,
    ],
    reads: withEventIndex ? [...READS, eventIndexProjection] : READS,
    async build({ commands, events, reads, env, keys, provided, runner, logger, config }) {
      const recordings = provided.use('recordings');
      // Old versions of erased documents may sit in the store's files until it compacts them.
      const compact = async () => reads.compact?.();
      const collections = {
        subjectDocuments: await reads.collection<SubjectDocument>(subjectDocumentsProjection.collection),
        customers: await reads.collection<CustomerDocument>(customersProjection.collection),
        logs: await reads.collection<CallLogDocument | ChatLogDocument>(callLogsProjection.collection),
        transcripts: await reads.collection<TranscriptDocument>(transcriptsProjection.collection),
        recordings: await reads.collection<RecordingDocument>(recordingsProjection.collection),
        blacklist: await reads.collection<BlacklistDocument>(blacklistProjection.collection),
        webhookDeliveries: await reads.collection<WebhookDeliveryDocument>(webhookDeliveriesProjection.collection),
        ...(withEventIndex && {
          eventIndex: await reads.collection<EventIndexDocument>(eventIndexProjection.collection),
        }),
      };
      const stopping = new AbortController();
      // However long it takes: compacting before every read model masked what an erasure names would leave copies.
      const readModelsInclude = async (position?: number, names?: readonly string[]) => {
        const at = position ?? (await events.headPosition());
        while (!(await runner.waitFor(at, 1000, names)))
          if (stopping.signal.aborted) throw new ErasureUnfinishedError(); // the next start finishes it
      };
      const completion = new ErasureCompletion({
        commands,
        env,
        keys,
        recordings,
        unfinished: await reads.collection<UnfinishedErasureDocument>(unfinishedErasuresProjection.collection),
        compact,
        readModelsInclude,
        unfinishedIncludeStore: () => readModelsInclude(undefined, [unfinishedErasuresProjection.name]),
      });
      const finishing = finishAtStart(completion, logger, stopping.signal);
      provided.provide('erasuresPending', () => completion.pending());
      const service = new PrivacyService({ commands, env, keys, collections, completion });
      const settings = await reads.collection<RetentionSettingDocument>(retentionSettingsProjection.collection);
      const retention = new RetentionService({ commands, env, settings });
      const candidates = await reads.collection<RetentionCandidateDocument>(retentionCandidatesProjection.collection);
      const sweeper = resumeAfterRestart({
        runner,
        logger,
        what: 'privacy-retention',
        sweepEveryMs: config.privacyRetentionSweepMs,
        messages: {
          done: 'privacy-retention: content of conversations past their retention erased',
          failed: 'privacy-retention: sweep failed',
        },
        resume: () =>
          sweepRetention({
            commands,
            env,
            keys,
            recordings,
            collections: { ...collections, settings, candidates },
            compact,
            readModelsInclude,
          }),
      });
      return {
        routes: [{ prefix: '/api/v1', security: 'organization', routes: privacyRoutes(service, retention) }],
        jobs: [{ name: 'privacy-retention', start: () => sweeper.start(), stop: () => sweeper.stop() }],
        stop: async () => {
          stopping.abort();
          await finishing;
        },
      };
    },
  };
}

export const privacyModule: ModuleDefinition = {
  ...privacy(true),
  over: (events) => privacy(!canSearch(events)),
};
