/**
 * The inbound path of calls: a carrier offers a call that came in to one of its numbers, and this
 * decides what becomes of it (docs/inbound.md). The built-in carrier offers its simulated callers here
 * in process; a real carrier's inbound webhook would offer its calls to the same function.
 *
 * 1. The number's own stream says who owns it and who answers it (never the read model, which may lag).
 *    A number nobody owns, or without an inbound agent, refuses the call and nothing is recorded: there
 *    is no organization, or no agent, to record it for.
 * 2. The caller is matched to a customer by phone number across the organization's live campaigns, the
 *    latest added first; a caller no customer has the number of is taken without a customer.
 * 3. What the provider needs to play the call is looked up before anything is recorded (as the
 *    dispatcher does for a dial): an agent deleted since the routing was set refuses the call.
 * 4. `ReceiveCall` records it with the caller's blacklist reading, the provider and this replica as its
 *    player: a blacklisted caller's call ends at once (Failed, `blacklisted`), and the carrier is told
 *    to refuse it. As at a dial, the blacklist is read again after the record, so a blacklisting that
 *    landed in between is not missed.
 *
 * From then on the call goes the way of a dialed one: the carrier plays it and reports through
 * `CarrierReports`, and another replica adopts it if this one dies (application/calls/call-dispatcher.ts).
 */
import {
  BLACKLISTED_INBOUND_SUMMARY,
  BLACKLISTED_REASON,
  callDecider,
  callStreamId,
  type CallTarget,
} from '../../domain/calls/call';
import { campaignDecider, campaignStreamId } from '../../domain/campaigns/campaign';
import { keyFieldOf } from '../../domain/customers/record';
import { phoneNumberDecider, phoneNumberStreamId } from '../../domain/numbers/owned-number';
import { isLanguageCode } from '../../domain/shared/languages';
import type { CustomerDocument } from '../../projections/customers/customers';
import { readBlacklist } from '../blacklist/blacklist-reading';
import { customerContact } from '../customers/customer-contact';
import type { CommandHandler } from '../command-handler';
import type { DialRequest } from '../ports/telephony';
import { dialRequestOf, type DialLookups } from './call-dispatcher';
import type { CarrierReports } from './carrier-reports';

/** A call that came in: `to` the number called (ours), `from` the caller. */
export type InboundCallOffer = {
  provider: string;
  callId: string;
  to: string;
  from: string;
  at: string;
  requestId: string;
};

/** Why an inbound call is refused without anything recorded. */
export type UnrecordedRefusal = 'number_not_owned' | 'no_inbound_agent' | 'agent_not_found';

export type InboundCallAnswer =
  /** Recorded: the carrier plays `request`. */
  | { outcome: 'answered'; callId: string; request: DialRequest }
  /** Recorded and ended at once (Failed, reason `blacklisted`): the carrier refuses it. */
  | { outcome: 'refused'; reason: typeof BLACKLISTED_REASON; callId: string }
  /** Nothing recorded: the carrier refuses it. */
  | { outcome: 'refused'; reason: UnrecordedRefusal };

/** A customer an inbound caller was matched to, as the call records it. */
export type CallerMatch = Pick<
  CallTarget,
  'campaignId' | 'campaignName' | 'customerKeyField' | 'customerKey' | 'customerName'
> & { language: string | null };

export type InboundCallLookups = DialLookups & {
  /** The organization's customers with this phone number, latest added first. */
  customersByPhone: (organizationId: string, phone: string) => Promise<CustomerDocument[]>;
};

export class InboundCalls {
  constructor(
    private readonly deps: {
      commands: CommandHandler;
      lookups: InboundCallLookups;
      reports: CarrierReports;
      /** This replica's name: the player of the calls it takes. */
      player: string;
    },
  ) {}

  async offer(offer: InboundCallOffer): Promise<InboundCallAnswer> {
    const { commands, lookups } = this.deps;
    const { state: number } = await commands.load(phoneNumberDecider, phoneNumberStreamId(offer.to));
    if (number.status !== 'owned') return { outcome: 'refused', reason: 'number_not_owned' };
    if (!number.inbound) return { outcome: 'refused', reason: 'no_inbound_agent' };
    const organizationId = number.organizationId;
    const organizationType = await lookups.organizationType(organizationId);
    if (!organizationType) return { outcome: 'refused', reason: 'number_not_owned' };

    const match = await this.match(organizationId, offer.from);
    const agent = await lookups.agent(organizationId, number.inbound.agentId);
    if (!agent) return { outcome: 'refused', reason: 'agent_not_found' };
    const target: CallTarget = {
      organizationId,
      campaignId: match?.campaignId ?? '',
      campaignName: match?.campaignName ?? '',
      customerKeyField: match?.customerKeyField ?? keyFieldOf(organizationType),
      customerKey: match?.customerKey ?? '',
      customerName: match?.customerName ?? '',
      to: number.number,
      from: offer.from,
      agentId: number.inbound.agentId,
      dispositionId: number.inbound.dispositionId,
      language: languageOf(match?.language ?? null, agent.language),
    };
    const request = await dialRequestOf(lookups, offer.callId, { ...target, direction: 'inbound' }, offer.at);
    if ('refusal' in request) return { outcome: 'refused', reason: 'agent_not_found' };

    const context = { organizationId, actor: `carrier:${offer.provider}`, requestId: offer.requestId };
    const stream = callStreamId(offer.callId);
    const blacklist = await readBlacklist(commands, organizationId, offer.from);
    const received = await commands.handle(
      callDecider,
      stream,
      {
        type: 'ReceiveCall',
        callId: offer.callId,
        at: offer.at,
        provider: offer.provider,
        player: this.deps.player,
        blacklist,
        ...target,
      },
      context,
    );
    if (received.events.some((e) => e.type === 'CallEnded'))
      return { outcome: 'refused', reason: BLACKLISTED_REASON, callId: offer.callId };
    // A blacklisting recorded between the first read and the record is seen now (as at a dial).
    const after = await readBlacklist(commands, organizationId, offer.from);
    if (after.revision !== blacklist.revision && after.listed) {
      await this.deps.reports.receive(
        {
          callId: offer.callId,
          kind: 'ended',
          at: offer.at,
          status: 'Failed',
          reason: BLACKLISTED_REASON,
          durationSeconds: 0,
          disposition: null,
          summary: BLACKLISTED_INBOUND_SUMMARY,
          extractedData: {},
          transcript: [],
          transcriptId: null,
          recordingId: null,
        },
        { provider: offer.provider, requestId: offer.requestId },
      );
      return { outcome: 'refused', reason: BLACKLISTED_REASON, callId: offer.callId };
    }
    return { outcome: 'answered', callId: offer.callId, request };
  }

  /** The customer with the caller's number in a live campaign of the organization, the latest added first. */
  async match(organizationId: string, phone: string): Promise<CallerMatch | null> {
    return matchCaller(this.deps.commands, this.deps.lookups, organizationId, phone);
  }
}

/** The customer an inbound caller (or chat sender) is, by phone number: see InboundCalls. */
export async function matchCaller(
  commands: CommandHandler,
  lookups: Pick<InboundCallLookups, 'customersByPhone' | 'organizationType'>,
  organizationId: string,
  phone: string,
): Promise<CallerMatch | null> {
  const type = await lookups.organizationType(organizationId);
  if (!type) return null;
  for (const customer of await lookups.customersByPhone(organizationId, phone)) {
    // A deleted campaign's customers are history, not callers to greet by name.
    const { state } = await commands.load(campaignDecider, campaignStreamId(customer.campaignId));
    if (state.status !== 'active' && state.status !== 'paused') continue;
    const contact = customerContact(
      { campaignId: customer.campaignId, campaignName: state.name, customerKeyField: keyFieldOf(type) },
      customer.customerId,
      customer.data,
    );
    return {
      campaignId: contact.campaignId,
      campaignName: contact.campaignName,
      customerKeyField: contact.customerKeyField,
      customerKey: contact.customerKey,
      customerName: contact.customerName,
      language: customer.language,
    };
  }
  return null;
}

/** The call's language: the customer's when the record names one, else the agent's, else English. */
function languageOf(customerLanguage: string | null, agentLanguage: string | undefined): string {
  if (customerLanguage && isLanguageCode(customerLanguage)) return customerLanguage;
  return agentLanguage && isLanguageCode(agentLanguage) ? agentLanguage : 'en';
}
