/**
 * What WhatsApp's webhooks tell the service, taken in: the subscription handshake, then each signed
 * payload's statuses and customer messages, as chat reports.
 *
 * Authentication. A payload is signed with the app secret of the Meta app the business numbers it
 * names are connected through (`X-Hub-Signature-256`). The organization of each change is found by
 * the business number it names (`metadata.phone_number_id`), and the signature must be valid with the
 * app secret of every organization the payload names: a batch naming several numbers is taken only
 * when all of them are connected here and their accounts' app secrets all verify the one signature
 * (several organizations on the same Meta app); a batch naming a number nobody connected, or one
 * whose accounts do not all verify it, is refused whole (403), nothing of it recorded.
 *
 * Statuses. `sent`, `delivered`, `read` and `failed` (with its `errors`, kept as WhatsApp wrote them)
 * are reported on our message: the one the status's `biz_opaque_callback_data` names (the send put
 * our message id there), when that message is the organization's and went out through WhatsApp; else
 * the organization's open message whose platform id is the status's `wamid` (the platform messages
 * read model). Other statuses, and statuses of messages that are not ours, are passed by.
 *
 * Customer messages. A text is recorded as the customer's line (other types as `[image]`, `[audio]`...)
 * on the open WhatsApp chat with that customer (by number, within the organization; the most recently
 * active one), its WhatsApp message id as the entry's id. Without one it is a customer writing first:
 * offered as an inbound chat (`InboundChats`), recorded when the number has an inbound agent, with an
 * id derived from WhatsApp's message id.
 *
 * Meta retries a webhook until it is answered 200, so taking one twice must change nothing: a status
 * already reached is ignored by the chat, an entry id already recorded is not recorded again, and an
 * inbound chat's derived id finds the chat a first delivery recorded. A failure of the stores is
 * thrown (answered 5xx) for Meta to deliver the payload again.
 */
import { derivedId } from '../../application/derived-id';
import type { ChatPlatformReports } from '../../application/chats/chat-platform-reports';
import { chatStreamId } from '../../application/chats/chat-sending';
import type { InboundChats } from '../../application/chats/inbound-chats';
import type { CommandHandler } from '../../application/command-handler';
import type { Logger } from '../../application/ports/logger';
import type { ProviderAccounts, WhatsAppAccount } from '../../application/ports/provider-accounts';
import type { ReadCollection } from '../../application/ports/read-store';
import { chatDecider, type ChatState, type ChatStatus } from '../../domain/chats/chat';
import { digitsOf } from '../../domain/numbers/phone-number';
import type { PlatformMessageDocument } from '../../projections/chats/platform-messages';
import { deliveryErrorOfWebhook } from './graph-errors';
import { hasValidSignature } from './signature';
import {
  changesOf,
  isoOfTimestamp,
  type WhatsAppChange,
  type WhatsAppInboundMessage,
  type WhatsAppStatus,
} from './webhook-payload';
import { WHATSAPP } from './whatsapp-platform';

export type WhatsAppWebhookDeps = {
  accounts: ProviderAccounts;
  commands: CommandHandler;
  reports: ChatPlatformReports;
  platformMessages: ReadCollection<PlatformMessageDocument>;
  /** Where customers' first messages are offered; without it they are passed by. */
  inbound?: InboundChats;
  /** Waits until the platform messages read model includes the events recorded so far. */
  readsCaughtUp?: () => Promise<unknown>;
  logger?: Logger;
};

export type WebhookOutcome =
  | { outcome: 'malformed' }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'taken'; recorded: number; passed: number };

const STATUSES: Readonly<Record<string, ChatStatus>> = {
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Failed',
};

type Chat = Exclude<ChatState, { status: 'none' }>;

export type WhatsAppWebhooks = {
  /** The subscription handshake: whether `token` is some organization's verify token. */
  subscribes(mode: unknown, token: unknown): Promise<boolean>;
  /** A payload as the bytes that came, with its `X-Hub-Signature-256`. */
  receive(body: Buffer, signature: string | undefined, requestId: string): Promise<WebhookOutcome>;
};

export function whatsappWebhooks(deps: WhatsAppWebhookDeps): WhatsAppWebhooks {
  const { commands, reports } = deps;

  async function chatOf(messageId: string): Promise<Chat | null> {
    const { state } = await commands.load(chatDecider, chatStreamId(messageId));
    return state.status === 'none' ? null : state;
  }

  /** The organization's open messages the read model finds, newest activity first. */
  async function found(where: Record<string, string>): Promise<PlatformMessageDocument[]> {
    await deps.readsCaughtUp?.();
    return deps.platformMessages.find({ where, sort: { field: 'lastActivityAt', order: 'desc' }, limit: 5 });
  }

  /** Our message a status is about, or null when it is none of the organization's WhatsApp messages. */
  async function messageOfStatus(organizationId: string, status: WhatsAppStatus): Promise<string | null> {
    const ours = (chat: Chat | null): chat is Chat =>
      chat !== null &&
      chat.organizationId === organizationId &&
      chat.dispatchedBy === WHATSAPP &&
      (chat.platformMsgId === null || chat.platformMsgId === status.id);
    if (status.callbackData && ours(await chatOf(status.callbackData))) return status.callbackData;
    for (const doc of await found({ organizationId, platformMsgId: status.id, provider: WHATSAPP }))
      if (ours(await chatOf(doc.id))) return doc.id;
    return null;
  }

  /** The open WhatsApp chat with the customer who wrote, or null. */
  async function openChatWith(organizationId: string, from: string): Promise<string | null> {
    for (const doc of await found({ organizationId, customer: digitsOf(from), provider: WHATSAPP })) {
      const chat = await chatOf(doc.id);
      if (chat && !chat.ended && chat.organizationId === organizationId) return doc.id;
    }
    return null;
  }

  async function takeStatus(organizationId: string, status: WhatsAppStatus, requestId: string): Promise<boolean> {
    const at = isoOfTimestamp(status.timestamp);
    const reported = STATUSES[status.status];
    if (!at || !reported) return false;
    const messageId = await messageOfStatus(organizationId, status);
    if (!messageId) {
      deps.logger?.warn('a WhatsApp status for no message of ours', { organizationId, wamid: status.id });
      return false;
    }
    await reports.receive(
      {
        messageId,
        kind: 'status',
        status: reported,
        at,
        platformMsgId: status.id,
        ...(reported === 'Failed' && { errors: status.errors.map(deliveryErrorOfWebhook) }),
      },
      { provider: WHATSAPP, requestId },
    );
    return true;
  }

  async function takeMessage(
    organizationId: string,
    change: WhatsAppChange,
    message: WhatsAppInboundMessage,
    requestId: string,
  ): Promise<boolean> {
    const at = isoOfTimestamp(message.timestamp);
    if (!at) return false;
    const content = message.text ?? `[${message.type}]`;
    // A first message taken already (Meta delivering the payload again) opened this chat.
    const inboundId = derivedId('whatsapp-inbound', message.id);
    if (await chatOf(inboundId)) return false;
    const open = await openChatWith(organizationId, message.from);
    if (open) {
      await reports.receive(
        { messageId: open, kind: 'message', entryId: message.id, role: 'user', content, at },
        { provider: WHATSAPP, requestId },
      );
      return true;
    }
    if (!deps.inbound) return false;
    const answer = await deps.inbound.offer({
      provider: WHATSAPP,
      messageId: inboundId,
      to: `+${digitsOf(change.displayPhoneNumber)}`,
      from: `+${digitsOf(message.from)}`,
      content,
      at,
      requestId,
    });
    if (answer.outcome === 'refused' && !('messageId' in answer))
      deps.logger?.info('a WhatsApp chat a customer opened was refused', { organizationId, reason: answer.reason });
    return 'messageId' in answer;
  }

  /** The account of each business number the changes name, when the signature is valid for all of them. */
  async function authenticated(
    changes: readonly WhatsAppChange[],
    body: Buffer,
    signature: string | undefined,
  ): Promise<Map<string, { organizationId: string; account: WhatsAppAccount }> | string> {
    const numbers = [...new Set(changes.map((c) => c.phoneNumberId))];
    if (numbers.length === 0) return 'the payload names no business number';
    const owners = new Map<string, { organizationId: string; account: WhatsAppAccount }>();
    for (const number of numbers) {
      const owner = await deps.accounts.byAccountId('whatsapp', number);
      if (!owner) return 'the payload names a business number no organization connected';
      if (!hasValidSignature(owner.account.appSecret, body, signature)) return 'invalid signature';
      owners.set(number, owner);
    }
    return owners;
  }

  return {
    async subscribes(mode, token) {
      return mode === 'subscribe' && typeof token === 'string' && token !== ''
        ? deps.accounts.hasWhatsAppVerifyToken(token)
        : false;
    },

    async receive(body, signature, requestId) {
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString('utf8'));
      } catch {
        return { outcome: 'malformed' };
      }
      const changes = changesOf(payload);
      if (changes === null) return { outcome: 'malformed' };
      const owners = await authenticated(changes, body, signature);
      if (typeof owners === 'string') return { outcome: 'refused', reason: owners };
      let recorded = 0;
      let passed = 0;
      const count = (taken: boolean) => (taken ? recorded++ : passed++);
      for (const change of changes) {
        const { organizationId } = owners.get(change.phoneNumberId)!;
        for (const status of change.statuses) count(await takeStatus(organizationId, status, requestId));
        for (const message of change.messages) count(await takeMessage(organizationId, change, message, requestId));
      }
      return { outcome: 'taken', recorded, passed };
    },
  };
}
