/**
 * The telephony provider port. `dial` hands a call to the carrier and returns once the carrier took
 * it; everything after (ringing, answered, ended, with transcript and recording) comes back through
 * `CarrierReports`, the same inbound path a real carrier's webhooks use. A call that comes in is
 * offered to `InboundCalls` (application/calls/inbound-calls.ts), which records it and answers the
 * request to play it with, or why it is refused.
 */
import type { OrganizationType } from '../../domain/organizations/organization';

export type DialAgent = { name: string; language?: string; voiceId: string; greeting?: string; lines?: string[] };

export type DialRequest = {
  callId: string;
  organizationId: string;
  organizationType: OrganizationType;
  from: string;
  to: string;
  /** Language code the call should be held in, when the customer record names none. */
  language: string;
  at: string;
  agent: DialAgent;
  customer: Record<string, unknown>;
  /** The dispositions the call's outcome may be given. */
  dispositions: { id: string; name: string }[];
  /**
   * `inbound`: the caller called us (`from` the caller, `to` our number) and the agent answers it; absent
   * for a call we dial (docs/inbound.md).
   */
  direction?: 'inbound';
};

export interface TelephonyProvider {
  readonly alias: string;
  dial(request: DialRequest): Promise<void>;
  /**
   * Only for a provider whose calls live inside this process (the built-in carrier): plays on a call
   * that was dialed at `request.at` and had not ended when the process stopped, from where its
   * timeline is now. Reports it already sent may come again; the call ignores them.
   */
  resume?(request: DialRequest): Promise<void>;
}
