/**
 * The calls part of the composition root: recordings (blob store and rendering with the service's
 * voices), the built-in carrier, the call placer, the dispatcher that hands queued calls to the
 * carrier, and the read-side services (logs, transcripts, recordings).
 */
import { join } from 'node:path';
import { CallPlacer } from '../application/calls/call-placer';
import { callDispatcher, resumeOpenCalls, type DialLookups } from '../application/calls/call-dispatcher';
import { CarrierReports } from '../application/calls/carrier-reports';
import { resumeAfterRestart } from '../application/resume-after-restart';
import { InitiateCalls } from '../application/calls/initiate-calls';
import { recordingBlobKey } from '../application/calls/recording-key';
import { RECORDING_CONTENT_TYPE, renderConversation } from '../application/calls/render-conversation';
import type { CommandHandler } from '../application/command-handler';
import { LogService } from '../application/logs/log-service';
import type { BlobStore } from '../application/ports/blob-store';
import type { EventStore } from '../application/ports/event-store';
import type { ProjectionRunner } from '../application/projection-runner';
import type { Logger } from '../application/ports/logger';
import type { ReadCollection, ReadStore } from '../application/ports/read-store';
import type { SpeechEngine } from '../application/ports/speech-engine';
import type { ServiceEnvironment } from '../application/request-context';
import type { BlacklistService } from '../application/blacklist/blacklist-service';
import type { NumberService } from '../application/numbers/number-service';
import { builtinCarrier, type RecordConversation } from '../infrastructure/carrier/builtin-carrier';
import type { Config } from '../infrastructure/config/config';
import { FilesystemBlobStore } from '../infrastructure/filesystem/filesystem-blob-store';
import { MemoryBlobStore } from '../infrastructure/memory/memory-blob-store';
import type { AgentDocument } from '../projections/agents/agents';
import type { CampaignDocument } from '../projections/campaigns/campaigns';
import { customerDocumentId, type CustomerDocument } from '../projections/customers/customers';
import type { DispositionGroupDocument } from '../projections/dispositions/disposition-groups';
import type { DispositionDocument } from '../projections/dispositions/dispositions';
import { callLogsProjection } from '../projections/logs/call-logs';
import { openCallsProjection, type OpenCallDocument } from '../projections/calls/open-calls';
import type { OrganizationDocument } from '../projections/organizations/organizations';
import { recordingsProjection, type RecordingDocument } from '../projections/recordings/recordings';
import { transcriptsProjection, type TranscriptDocument } from '../projections/transcripts/transcripts';

export type CallsDeps = {
  config: Config;
  logger: Logger;
  events: EventStore;
  reads: ReadStore;
  /** The projections: `waitFor(position)` until the read models include an event. */
  runner: ProjectionRunner;
  commands: CommandHandler;
  env: ServiceEnvironment;
  engine: SpeechEngine | null;
  numbers: NumberService;
  blacklist: BlacklistService;
  collections: {
    organizations: ReadCollection<OrganizationDocument>;
    agents: ReadCollection<AgentDocument>;
    customers: ReadCollection<CustomerDocument>;
    campaigns: ReadCollection<CampaignDocument>;
    dispositions: ReadCollection<DispositionDocument>;
    groups: ReadCollection<DispositionGroupDocument>;
  };
};

export type Calls = Awaited<ReturnType<typeof composeCalls>>;

export async function composeCalls(deps: CallsDeps) {
  const { config, collections, env } = deps;
  const blobs: BlobStore =
    config.readStore === 'memory'
      ? new MemoryBlobStore()
      : await FilesystemBlobStore.open(join(config.dataDir, 'recordings'));

  /** A disposition id stands for itself; a group id for the group's members (the outcomes a call may take). */
  const dispositionsOf = async (organizationId: string, id: string) => {
    const single = await collections.dispositions.get(id);
    if (single) return single.organizationId === organizationId ? [{ id: single.id, name: single.name }] : [];
    const group = await collections.groups.get(id);
    if (!group || group.organizationId !== organizationId) return [];
    const members = await collections.dispositions.getStored(group.dispositionIds);
    return group.dispositionIds.flatMap((m) => {
      const doc = members.get(m)?.doc;
      return doc ? [{ id: doc.id, name: doc.name }] : [];
    });
  };
  const agentOf = async (organizationId: string, agentId: string) => {
    const agent = await collections.agents.get(agentId);
    return agent && agent.organizationId === organizationId ? agent : null;
  };

  const placer = new CallPlacer(
    deps.commands,
    {
      agentExists: async (org, agentId) => (await agentOf(org, agentId)) !== null,
      dispositionsOf,
      voiceNumbers: async (org) => (await deps.numbers.voiceNumbersOf(org)).map((n) => n.number),
      blacklist: (org) => deps.blacklist.snapshot(org),
    },
    env,
  );

  const reports = new CarrierReports(deps.commands);
  const engine = deps.engine;
  // Recordings need the speech engine: a process without it (SERVICES=agent) records no audio.
  const record: RecordConversation | undefined = engine
    ? async (call) => {
        const wav = await renderConversation(engine, {
          language: call.language,
          agentVoiceId: call.agentVoiceId,
          turns: call.turns,
        });
        const recordingId = env.newId();
        await blobs.put(recordingBlobKey(recordingId), wav, RECORDING_CONTENT_TYPE);
        return recordingId;
      }
    : undefined;
  const carrier = builtinCarrier({
    reports,
    speed: config.simulationSpeed,
    newId: env.newId,
    record,
    logger: deps.logger,
    now: env.now,
  });

  const lookups: DialLookups = {
    organizationType: async (org) => (await collections.organizations.get(org))?.type ?? null,
    customer: async (_org, campaignId, key) =>
      (await collections.customers.get(customerDocumentId(campaignId, key)))?.data ?? null,
    agent: async (org, agentId) => {
      const agent = await agentOf(org, agentId);
      return (
        agent && {
          name: agent.name,
          language: agent.language,
          voiceId: agent.voiceId,
          ...(agent.greeting && { greeting: agent.greeting }),
          ...(agent.lines && { lines: agent.lines }),
        }
      );
    },
    dispositions: dispositionsOf,
  };

  const dispatch = { commands: deps.commands, provider: carrier, reports, lookups, now: env.now };
  const openCalls = await deps.reads.collection<OpenCallDocument>(openCallsProjection.collection);
  const startedAt = env.now().toISOString();

  return {
    placer,
    reports,
    carrier,
    managers: [callDispatcher(dispatch)],
    /** Plays on the built-in carrier's calls that a stop cut short. */
    resumer: resumeAfterRestart({
      runner: deps.runner,
      logger: deps.logger,
      what: 'calls',
      resume: () => resumeOpenCalls({ ...dispatch, openCalls, startedAt, logger: deps.logger }),
    }),
    agentOf,
    dispositionsOf,
    logs: new LogService(await deps.reads.collection(callLogsProjection.collection)),
    initiateCalls: new InitiateCalls(deps.commands, collections.customers, placer),
    media: {
      transcripts: await deps.reads.collection<TranscriptDocument>(transcriptsProjection.collection),
      recordings: await deps.reads.collection<RecordingDocument>(recordingsProjection.collection),
      blobs,
    },
  };
}
