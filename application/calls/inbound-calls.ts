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
  blacklistedEnding,
  callDecider,
  callStreamId,
  type CallTarget,
} from '../../domain/calls/call';
import { readBlacklist } from '../blacklist/blacklist-reading';
import type { CommandHandler } from '../command-handler';
import type { DialRequest } from '../ports/telephony';
import { routeInbound, type InboundLookups, type UnrecordedRefusal } from '../inbound/inbound-contact';
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

export type InboundCallAnswer =
  /** Recorded: the carrier plays `request`. */
  | { outcome: 'answered'; callId: string; request: DialRequest }
  /** Recorded and ended at once (Failed, reason `blacklisted`): the carrier refuses it. */
  | { outcome: 'refused'; reason: typeof BLACKLISTED_REASON; callId: string }
  /** Nothing recorded: the carrier refuses it. */
  | { outcome: 'refused'; reason: UnrecordedRefusal };

export type InboundCallLookups = DialLookups & InboundLookups;

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
    const route = await routeInbound(commands, lookups, offer);
    if ('refused' in route) return { outcome: 'refused', reason: route.refused };
    const { organizationId } = route.target;
    const target: CallTarget = { ...route.target, from: offer.from };
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
        { callId: offer.callId, kind: 'ended', ...blacklistedEnding(offer.at, BLACKLISTED_INBOUND_SUMMARY) },
        { provider: offer.provider, requestId: offer.requestId },
      );
      return { outcome: 'refused', reason: BLACKLISTED_REASON, callId: offer.callId };
    }
    return { outcome: 'answered', callId: offer.callId, request };
  }
}
