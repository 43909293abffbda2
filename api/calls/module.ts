/**
 * Calls: the call placer (which other features use), initiate-calls, the built-in carrier and the
 * dispatcher that hands queued calls to it, the carriers' inbound reports, recordings rendered with the
 * service's voices, and the calls a stopped replica left (this replica's name is the player of the
 * calls it dials; the `calls-resumer` job adopts and plays on those whose player is no longer alive),
 * and the calls that come in to the organization's numbers (`inboundCalls`, docs/inbound.md). A call
 * is dialed by the provider of its number: the `telephony` map below holds this process's providers.
 */
import { callDispatcher, resumeOrphanedCalls, type DialLookups } from '../../application/calls/call-dispatcher';
import { CallPlacer } from '../../application/calls/call-placer';
import { CarrierReports } from '../../application/calls/carrier-reports';
import { InboundCalls } from '../../application/calls/inbound-calls';
import { InitiateCalls } from '../../application/calls/initiate-calls';
import { campaignQueueManager, scheduledCallsTimer } from '../../application/calls/scheduled-calls';
import { pacingReleaseManager } from '../../application/calls/pacing-release';
import { callRetryManager } from '../../application/calls/call-retries';
import { scheduledCallsProjection, type ScheduledCallDocument } from '../../projections/calls/scheduled-calls';
import { recordingBlobKey } from '../../application/calls/recording-key';
import type { TelephonyProvider } from '../../application/ports/telephony';
import { RECORDING_CONTENT_TYPE, renderConversation } from '../../application/calls/render-conversation';
import { resumeAfterRestart } from '../../application/resume-after-restart';
import { callStreamId } from '../../domain/calls/call';
import { undialedCallsProjection } from '../../projections/shared/undispatched';
import { builtinCarrier, type RecordConversation } from '../../infrastructure/carrier/builtin-carrier';
import { openBlobStore } from '../../infrastructure/blob-stores';
import { openCallsProjection, type OpenCallDocument } from '../../projections/calls/open-calls';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { agentsProjection } from '../../projections/agents/agents';
import { blacklistProjection } from '../../projections/blacklist/blacklist';
import { dispositionGroupsProjection } from '../../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../../projections/dispositions/dispositions';
import { numbersProjection } from '../../projections/numbers/numbers';
import { carrierRoutes } from '../carrier/router';
import { twilioMediaSockets } from '../carrier/twilio-media-socket';
import { twilioRoutes } from '../carrier/twilio-router';
import { twilioCarrier } from '../../infrastructure/twilio/twilio-carrier';
import { requireSecret } from '../http/auth';
import type { ModuleDefinition } from '../module';
import { reconcilerOf } from '../reconciler';
import { callRoutes } from './router';

/** What the call placer (lent as `callPlacer`) reads: the agent, the disposition or group, the numbers, the blacklist. */
export const placingCallsReads = [
  agentsProjection,
  dispositionsProjection,
  dispositionGroupsProjection,
  numbersProjection,
  blacklistProjection,
];

export const callsModule: ModuleDefinition = {
  name: 'calls',
  projections: [openCallsProjection, undialedCallsProjection, scheduledCallsProjection],
  reads: [customersProjection, ...placingCallsReads],
  async build(deps) {
    const { config, commands, reads, env, engine, lookups, logger, runner, provided, replica } = deps;
    const numbers = provided.use('numbers');
    const blacklist = provided.use('blacklist');
    // Where every replica reaches them: GridFS beside a MongoDB read store, the data directory otherwise.
    const blobs = await openBlobStore(config);
    provided.provide('recordings', blobs);

    const placer = new CallPlacer(
      commands,
      {
        agentExists: (org, agentId) => lookups.agentExists(org, agentId),
        dispositionsOf: (org, id) => lookups.dispositionsOf(org, id),
        voiceNumbers: async (org) => (await numbers.voiceNumbersOf(org)).map((n) => n.number),
        blacklist: (org) => blacklist.snapshot(org),
      },
      env,
    );
    provided.provide('callPlacer', placer);

    const reports = new CarrierReports(commands);
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
    const dialLookups: DialLookups = {
      organizationType: (org) => lookups.organizationType(org),
      customer: (org, campaignId, key) => lookups.customer(org, campaignId, key),
      agent: async (org, agentId) => {
        const agent = await lookups.agent(org, agentId);
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
      dispositions: (org, id) => lookups.dispositionsOf(org, id),
    };
    // Calls that come in to the organization's numbers (docs/inbound.md), played here like dialed ones.
    const inbound = new InboundCalls({
      commands,
      lookups: { ...dialLookups, customersByPhone: (org, phone) => lookups.customersByPhone(org, phone) },
      reports,
      player: replica.name,
    });
    const carrier = builtinCarrier({
      reports,
      speed: config.simulationSpeed,
      newId: env.newId,
      record,
      logger,
      now: env.now,
      inbound,
    });
    provided.provide('inboundCalls', async (call) => {
      const answer = await carrier.receiveInbound(call);
      return answer.outcome === 'answered' ? { outcome: 'answered', callId: answer.callId } : answer;
    });
    // The telephony providers of this process, by alias: a call is dialed by the provider of the number
    // it is placed from (application/calls/call-dispatcher.ts), a provider missing here fails it.
    // Real providers' adapters read the organizations' credentials through `providerAccounts`.
    const accounts = provided.use('providerAccounts');
    const twilio = twilioCarrier({ accounts, config });
    const telephony = new Map<string, TelephonyProvider>([
      [carrier.alias, carrier],
      [twilio.alias, twilio],
    ]);
    const dispatch = {
      commands,
      provider: carrier,
      routing: {
        byAlias: (alias: string) => telephony.get(alias),
        numberProvider: (org: string, number: string) => numbers.providerOf(org, number),
      },
      reports,
      lookups: dialLookups,
      now: env.now,
      player: replica.name,
      callingHours: config.callingHours,
      pacing: config.campaignPacing,
    };
    const openCalls = await reads.collection<OpenCallDocument>(openCallsProjection.collection);
    // The built-in carrier's calls whose replica stopped (its lease expired) play on here.
    const resumer = resumeAfterRestart({
      runner,
      logger,
      what: 'calls',
      resume: () => resumeOrphanedCalls({ ...dispatch, openCalls, alive: replica.alive, logger }),
    });
    const dispatcher = callDispatcher(dispatch);
    // Queued calls the dispatcher passed by without dialing are dialed after RECONCILE_AFTER_SECONDS.
    const reconciler = await reconcilerOf(deps, 'calls-reconciler', {
      pending: undialedCallsProjection,
      streamOf: callStreamId,
      dispatcher,
    });
    const customers = await reads.collection<CustomerDocument>(customersProjection.collection);
    // Calls waiting for their campaign's window, a paused campaign's resumption (docs/campaign-schedules.md).
    const scheduled = await reads.collection<ScheduledCallDocument>(scheduledCallsProjection.collection);
    const timer = scheduledCallsTimer(dispatch, scheduled, logger);

    return {
      routes: [
        {
          prefix: '/api/v1',
          security: 'organization',
          routes: callRoutes(new InitiateCalls(commands, customers, placer)),
        },
        // Twilio's webhooks (status, recording, incoming calls), each checked by its X-Twilio-Signature.
        {
          prefix: '/carrier/v1',
          security: 'public',
          routes: twilioRoutes({ accounts, config, commands, reports, blobs, inbound }),
        },
        // Carriers' webhooks: authenticated with the carrier's shared secret, not an organization token.
        {
          prefix: '/carrier/v1',
          security: 'secret',
          guard: requireSecret(config.carrierWebhookSecret),
          routes: carrierRoutes(reports),
        },
      ],
      // Twilio's Media Streams: the agent's lines spoken into its calls (in processes that serve speech).
      sockets: twilioMediaSockets(deps, { accounts, reports }),
      managers: [
        dispatcher,
        campaignQueueManager(dispatch, scheduled),
        pacingReleaseManager({ commands, now: env.now }),
        callRetryManager({ commands, now: env.now }),
      ],
      jobs: [
        { name: 'calls-resumer', start: () => resumer.start(), stop: () => resumer.stop() },
        reconciler,
        { name: 'scheduled-calls', start: () => timer.start(), stop: () => timer.stop() },
      ],
      stop: async () => {
        await carrier.stop();
        await blobs.close?.();
      },
    };
  },
};
