/**
 * The inbound path of chats: a platform offers a customer's first message to one of its numbers, and
 * this decides what becomes of it (docs/inbound.md), as `InboundCalls` does for calls:
 *
 * 1. the number's own stream says who owns it and who answers it; a number nobody owns, or without an
 *    inbound agent, refuses the chat and nothing is recorded;
 * 2. the sender is matched to a customer by phone number across the organization's live campaigns;
 *    an unknown sender is taken without a customer;
 * 3. what the platform needs is looked up before anything is recorded;
 * 4. `ReceiveChat` records it with the sender's blacklist reading, the provider and this replica as
 *    its player: a blacklisted sender's chat fails at once (5003, `blacklisted`) and ends.
 *
 * From then on the chat goes the way of a sent one: the platform plays it and reports through
 * `ChatPlatformReports`, and another replica adopts it if this one dies.
 */
import { chatDecider } from '../../domain/chats/chat';
import { deliveryError } from '../../domain/chats/delivery-errors';
import { readBlacklist } from '../blacklist/blacklist-reading';
import { routeInbound, type InboundLookups, type UnrecordedRefusal } from '../inbound/inbound-contact';
import type { CommandHandler } from '../command-handler';
import type { ChatSendRequest } from '../ports/chat-platform';
import { chatRequestOf, type ChatDispatchLookups } from './chat-dispatcher';
import type { ChatPlatformReports } from './chat-platform-reports';
import { chatStreamId } from './chat-sending';

/** A customer's first message: `to` the number written to (ours), `from` the sender, `content` what they wrote. */
export type InboundChatOffer = {
  provider: string;
  messageId: string;
  to: string;
  from: string;
  content: string;
  at: string;
  requestId: string;
};

export type InboundChatAnswer =
  | { outcome: 'answered'; messageId: string; request: ChatSendRequest }
  | { outcome: 'refused'; reason: 'blacklisted'; messageId: string }
  | { outcome: 'refused'; reason: UnrecordedRefusal };

export type InboundChatLookups = ChatDispatchLookups & InboundLookups;

export class InboundChats {
  constructor(
    private readonly deps: {
      commands: CommandHandler;
      lookups: InboundChatLookups;
      reports: ChatPlatformReports;
      /** This replica's name: the player of the chats it takes. */
      player: string;
    },
  ) {}

  async offer(offer: InboundChatOffer): Promise<InboundChatAnswer> {
    const { commands, lookups } = this.deps;
    const route = await routeInbound(commands, lookups, offer);
    if ('refused' in route) return { outcome: 'refused', reason: route.refused };
    const { organizationId } = route.target;
    const target = { ...route.target, templateId: '', content: offer.content };
    const request = await chatRequestOf(
      lookups,
      offer.messageId,
      { ...target, direction: 'inbound', from: offer.from },
      offer.at,
    );
    if ('error' in request) return { outcome: 'refused', reason: 'agent_not_found' };

    const context = { organizationId, actor: `chat:${offer.provider}`, requestId: offer.requestId };
    const blacklist = await readBlacklist(commands, organizationId, offer.from);
    const received = await commands.handle(
      chatDecider,
      chatStreamId(offer.messageId),
      {
        type: 'ReceiveChat',
        messageId: offer.messageId,
        at: offer.at,
        from: offer.from,
        provider: offer.provider,
        player: this.deps.player,
        blacklist,
        ...target,
      },
      context,
    );
    if (received.events.some((e) => e.type === 'ChatEnded'))
      return { outcome: 'refused', reason: 'blacklisted', messageId: offer.messageId };
    // A blacklisting recorded between the first read and the record is seen now (as at a dispatch).
    const after = await readBlacklist(commands, organizationId, offer.from);
    if (after.revision !== blacklist.revision && after.listed) {
      await this.deps.reports.receive(
        {
          messageId: offer.messageId,
          kind: 'closed',
          at: offer.at,
          reason: 'blacklisted',
          disposition: null,
          summary: `The chat was refused: ${deliveryError('blacklisted', offer.from).title}.`,
        },
        { provider: offer.provider, requestId: offer.requestId },
      );
      return { outcome: 'refused', reason: 'blacklisted', messageId: offer.messageId };
    }
    return { outcome: 'answered', messageId: offer.messageId, request };
  }
}
