/**
 * A data subject's rights (docs/privacy.md): erasure and export; and the retention of conversation
 * content, which a leased job (`privacy-retention`) sweeps. It owns the index of which aggregates hold
 * each subject's personal data, the organizations' retentions and the conversations a retention may
 * erase, and reads the read models of the features before it (customers, logs and media, the
 * blacklist, webhook deliveries), whose projections follow its erasures. Over an event store that
 * cannot search its events the audit keeps an event index, which erasures mask too.
 */
import { canSearch } from '../../application/audit/event-store-audit';
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
import { recordingsProjection, type RecordingDocument } from '../../projections/recordings/recordings';
import { transcriptsProjection, type TranscriptDocument } from '../../projections/transcripts/transcripts';
import {
  webhookDeliveriesProjection,
  type WebhookDeliveryDocument,
} from '../../projections/webhooks/webhook-deliveries';
import type { ModuleDefinition } from '../module';
import { privacyRoutes } from './router';

const READS = [
  subjectDocumentsProjection,
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
    projections: [subjectDocumentsProjection, retentionSettingsProjection, retentionCandidatesProjection],
    reads: withEventIndex ? [...READS, eventIndexProjection] : READS,
    async build({ commands, reads, env, keys, provided, runner, logger, config }) {
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
      const service = new PrivacyService({ commands, env, keys, recordings, collections, compact });
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
          }),
      });
      return {
        routes: [{ prefix: '/api/v1', security: 'organization', routes: privacyRoutes(service, retention) }],
        jobs: [{ name: 'privacy-retention', start: () => sweeper.start(), stop: () => sweeper.stop() }],
      };
    },
  };
}

export const privacyModule: ModuleDefinition = {
  ...privacy(true),
  over: (events) => privacy(!canSearch(events)),
};
