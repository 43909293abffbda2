/**
 * The Twilio voice adapter (alias `twilio`): a call is placed through Twilio's REST API on the
 * organization's own Twilio account, connected to the media stream that speaks the agent's lines
 * (twiml.ts), and recorded. Everything after the dial comes back through Twilio's webhooks
 * (api/carrier/twilio-router.ts): status callbacks for ringing, answered and the end, and the
 * recording callback once the recording is ready.
 */
import type { ProviderAccounts } from '../../application/ports/provider-accounts';
import type { DialRequest, TelephonyProvider } from '../../application/ports/telephony';
import { twilioRestClient, type Fetch, type TwilioRestClient } from './rest-client';
import { streamTwiml } from './twiml';

export const TWILIO_ALIAS = 'twilio';
export const TWILIO_REPORTS_PATH = '/carrier/v1/twilio/reports';

export type TwilioConfig = { publicUrl: string | null; twilioApiUrl: string };

/** A dial that cannot work as things are (no account, no PUBLIC_URL): trying again changes nothing. */
export class TwilioNotReadyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TwilioNotReadyError';
  }
}

/** Where Twilio reports on a call: status callbacks, and (`kind=recording`) its recording. */
export function reportsUrl(publicUrl: string, callId: string, kind?: 'recording'): string {
  const query = new URLSearchParams({ callId, ...(kind && { kind }) });
  return `${publicUrl}${TWILIO_REPORTS_PATH}?${query.toString()}`;
}

export function twilioCarrier(options: {
  accounts: ProviderAccounts;
  config: TwilioConfig;
  fetch?: Fetch;
  client?: TwilioRestClient;
}): TelephonyProvider {
  const client = options.client ?? twilioRestClient({ apiUrl: options.config.twilioApiUrl, fetch: options.fetch });
  return {
    alias: TWILIO_ALIAS,
    async dial(request: DialRequest) {
      const account = await options.accounts.accountOf(request.organizationId, 'twilio');
      if (!account) throw new TwilioNotReadyError('The twilio provider is not connected for this organization');
      const { publicUrl } = options.config;
      if (!publicUrl) throw new TwilioNotReadyError('PUBLIC_URL is not set: Twilio could not reach the service');
      await client.createCall(account, {
        To: request.to,
        From: request.from,
        Twiml: streamTwiml(publicUrl, request.callId),
        StatusCallback: reportsUrl(publicUrl, request.callId),
        StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
        StatusCallbackMethod: 'POST',
        Record: true,
        RecordingStatusCallback: reportsUrl(publicUrl, request.callId, 'recording'),
        RecordingStatusCallbackEvent: ['completed'],
        RecordingStatusCallbackMethod: 'POST',
      });
    },
  };
}
