/**
 * What Twilio's webhooks do, apart from HTTP (api/carrier/twilio-router.ts answers them):
 *
 * - every webhook names its account (`AccountSid`): the organization connected with that account is
 *   the one it is for, and the request must carry that account's signature of the URL Twilio called
 *   and of its parameters;
 * - a status callback moves the call it names (only a call of that organization, placed through
 *   Twilio) through `CarrierReports`: a callback sent again, or late, moves nothing;
 * - a recording callback, once the recording is complete, stores it (once: its id comes from the
 *   RecordingSid) and attaches it to the call;
 * - an incoming call is offered to `InboundCalls` under an id made from its CallSid, so Twilio's retry
 *   offers the same call again, and is recorded from the start (its recording callback comes back as
 *   a dialed call's does) and connected to the media stream, or refused.
 */
import type { CarrierReports } from '../../application/calls/carrier-reports';
import type { InboundCalls } from '../../application/calls/inbound-calls';
import type { CommandHandler } from '../../application/command-handler';
import type { BlobStore } from '../../application/ports/blob-store';
import type { ProviderAccounts, TwilioAccount } from '../../application/ports/provider-accounts';
import { callDecider, callStreamId } from '../../domain/calls/call';
import { phoneNumberDecider, phoneNumberStreamId } from '../../domain/numbers/owned-number';
import { storeTwilioRecording } from './recordings';
import { twilioRestClient, type Fetch, type TwilioRestClient } from './rest-client';
import { isTwilioSignatureValid, type FormParams } from './signature';
import { reportOfCallStatus, timestampOf } from './status-callbacks';
import { reportsUrl, TWILIO_ALIAS, type TwilioConfig } from './twilio-carrier';
import { rejectTwiml, streamTwiml } from './twiml';

export type TwilioWebhookDeps = {
  accounts: ProviderAccounts;
  config: TwilioConfig;
  /** Reads the call a callback names (its organization, whether it was answered). */
  commands: CommandHandler;
  reports: CarrierReports;
  blobs: BlobStore;
  /** Where incoming calls are offered; without it every incoming call is refused. */
  inbound?: InboundCalls;
  fetch?: Fetch;
  client?: TwilioRestClient;
  now?: () => Date;
};

/** The organization a signed webhook is for, with its account. */
export type TwilioSender = { organizationId: string; account: TwilioAccount };

export type CallbackOutcome = 'recorded' | 'call_not_found' | 'other_organization';

/** The call id of a call that came in through Twilio: the same CallSid, the same call. */
export const inboundCallIdOf = (callSid: string): string => `twilio-${callSid}`;

export function twilioWebhooks(deps: TwilioWebhookDeps) {
  const now = deps.now ?? (() => new Date());
  const client = deps.client ?? twilioRestClient({ apiUrl: deps.config.twilioApiUrl, fetch: deps.fetch });
  const first = (params: FormParams, name: string) => params.find(([n]) => n === name)?.[1] ?? null;
  const get = (params: FormParams) => ({ get: (name: string) => first(params, name) });

  /** The call `callId` when it is the sender's and was placed through Twilio; why not otherwise. */
  async function callOf(sender: TwilioSender, callId: string) {
    const { state } = await deps.commands.load(callDecider, callStreamId(callId));
    if (state.status === 'none' || state.dialedBy !== TWILIO_ALIAS) return 'call_not_found' as const;
    if (state.organizationId !== sender.organizationId) return 'other_organization' as const;
    return state;
  }

  /** The call a callback is about: `callId` from its URL, or an incoming call's, made from its CallSid. */
  async function callNamed(sender: TwilioSender, callId: string | null, params: FormParams) {
    const id = callId ?? inboundCallIdOf(first(params, 'CallSid') ?? '');
    return { id, call: await callOf(sender, id) };
  }

  return {
    /**
     * The sender of a webhook Twilio sent to `pathAndQuery` (below PUBLIC_URL) with `params`, when its
     * signature is that of the account it names; null otherwise (and always without PUBLIC_URL).
     */
    async authenticate(
      pathAndQuery: string,
      params: FormParams,
      signature: string | undefined,
    ): Promise<TwilioSender | null> {
      const { publicUrl } = deps.config;
      const accountSid = first(params, 'AccountSid');
      if (!publicUrl || !accountSid || !signature) return null;
      const sender = await deps.accounts.byAccountId('twilio', accountSid);
      if (!sender) return null;
      return isTwilioSignatureValid(sender.account.authToken, publicUrl + pathAndQuery, params, signature)
        ? sender
        : null;
    },

    /** A status callback (`callId` from its URL; an incoming call's is made from its CallSid). */
    async callStatus(
      sender: TwilioSender,
      callId: string | null,
      params: FormParams,
      requestId: string,
    ): Promise<CallbackOutcome> {
      const { id, call } = await callNamed(sender, callId, params);
      if (typeof call === 'string') return call;
      const report = reportOfCallStatus(id, get(params), { answered: call.status === 'In Progress', now });
      if (report) await deps.reports.receive(report, { provider: TWILIO_ALIAS, requestId });
      return 'recorded';
    },

    /** A recording status callback: a completed recording is stored and attached to the call. */
    async recordingStatus(
      sender: TwilioSender,
      callId: string | null,
      params: FormParams,
      requestId: string,
    ): Promise<CallbackOutcome> {
      const { id, call } = await callNamed(sender, callId, params);
      if (typeof call === 'string') return call;
      const recordingSid = first(params, 'RecordingSid');
      const recordingUrl = first(params, 'RecordingUrl');
      if (first(params, 'RecordingStatus') !== 'completed' || !recordingSid || !recordingUrl) return 'recorded';
      const recordingId = await storeTwilioRecording({ client, blobs: deps.blobs }, sender.account, {
        recordingSid,
        recordingUrl,
      });
      await deps.reports.receive(
        { callId: id, kind: 'media', at: timestampOf(first(params, 'Timestamp'), now), recordingId },
        { provider: TWILIO_ALIAS, requestId },
      );
      return 'recorded';
    },

    /** An incoming call (the number's Voice URL): the TwiML that records it and connects it to the agent, or refuses it. */
    async incomingCall(sender: TwilioSender, params: FormParams, requestId: string): Promise<string> {
      const { publicUrl } = deps.config;
      const callSid = first(params, 'CallSid');
      const to = first(params, 'To');
      const from = first(params, 'From');
      if (!deps.inbound || !publicUrl || !callSid || !to || !from) return rejectTwiml();
      // Only a number of the account's own organization is offered: nothing is recorded for another one.
      const { state: number } = await deps.commands.load(phoneNumberDecider, phoneNumberStreamId(to));
      if (number.status !== 'owned' || number.organizationId !== sender.organizationId) return rejectTwiml();
      const callId = inboundCallIdOf(callSid);
      const answer = await deps.inbound.offer({
        provider: TWILIO_ALIAS,
        callId,
        to,
        from,
        at: timestampOf(first(params, 'Timestamp'), now),
        requestId,
      });
      if (answer.outcome !== 'answered') return rejectTwiml();
      return streamTwiml(publicUrl, callId, { recordingStatusCallback: reportsUrl(publicUrl, callId, 'recording') });
    },
  };
}

export type TwilioWebhooks = ReturnType<typeof twilioWebhooks>;
