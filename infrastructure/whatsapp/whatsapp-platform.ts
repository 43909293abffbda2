/**
 * The WhatsApp Cloud API chat platform (alias `whatsapp`). A message goes out from the organization's
 * WhatsApp business number (its account: provider-accounts), as the approved template the request
 * names (business-initiated messages must be templates) or, without one, as plain text (an answer
 * inside the customer's service window). Our message id rides along as `biz_opaque_callback_data`,
 * which WhatsApp returns in every status webhook of the message: the webhook finds the message by it.
 * Everything after the send comes back through the webhooks (api/chats/whatsapp-router.ts).
 *
 * A send WhatsApp refuses (a 4xx) fails the message with WhatsApp's own error object, reported here
 * before `send` throws, so the failure keeps what WhatsApp said (the dispatcher's own failure report
 * that follows the throw finds the message ended and changes nothing). A send that finds the API
 * briefly away (5xx, 429, throttling, no connection) is tried again a few times with growing pauses;
 * a retried send that WhatsApp had in fact taken may reach the customer twice, which the Cloud API
 * offers no way to prevent. If it stays away, `send` throws and the dispatcher fails the message.
 */
import type { ChatPlatformReports } from '../../application/chats/chat-platform-reports';
import type { ChatPlatform, ChatSendRequest } from '../../application/ports/chat-platform';
import type { Logger } from '../../application/ports/logger';
import type { ProviderAccounts } from '../../application/ports/provider-accounts';
import type { DeliveryError } from '../../domain/chats/delivery-errors';
import { digitsOf } from '../../domain/numbers/phone-number';
import { graphClient, type GraphAnswer, type GraphMessage } from './graph-client';
import { deliveryErrorOfGraph } from './graph-errors';

export const WHATSAPP = 'whatsapp';

export type WhatsAppPlatformOptions = {
  accounts: ProviderAccounts;
  config: { whatsappGraphUrl: string; whatsappGraphVersion: string };
  reports: ChatPlatformReports;
  fetch?: typeof fetch;
  now?: () => Date;
  logger?: Logger;
  /** Tries of a send while the API is away, and the first pause (doubling); default 4 tries from 250 ms. */
  retry?: { attempts: number; firstPauseMs: number };
  pause?: (ms: number) => Promise<void>;
};

/** WhatsApp refused the message: `errors` is what it said, as the message's delivery errors. */
export class WhatsAppRefusal extends Error {
  constructor(readonly errors: DeliveryError[]) {
    super(`WhatsApp refused the message: ${errors[0]?.message ?? 'no reason given'}`);
    this.name = 'WhatsAppRefusal';
  }
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The message as the Graph API takes it: the template with its body parameters, or plain text. */
export function graphMessageOf(request: ChatSendRequest): GraphMessage {
  if (!request.template) return { type: 'text', text: { body: request.content, preview_url: false } };
  return {
    type: 'template',
    template: {
      name: request.template.name,
      language: { code: request.templateLanguage },
      components:
        request.template.parameters.length === 0
          ? []
          : [{ type: 'body', parameters: request.template.parameters.map((text) => ({ type: 'text', text })) }],
    },
  };
}

export function whatsappPlatform(options: WhatsAppPlatformOptions): ChatPlatform {
  const client = graphClient({
    baseUrl: options.config.whatsappGraphUrl,
    version: options.config.whatsappGraphVersion,
    fetch: options.fetch,
  });
  const { attempts, firstPauseMs } = options.retry ?? { attempts: 4, firstPauseMs: 250 };
  const pause = options.pause ?? timer;
  const now = options.now ?? (() => new Date());

  return {
    alias: WHATSAPP,
    sendsTemplates: true,
    async send(request) {
      const account = await options.accounts.accountOf(request.organizationId, 'whatsapp');
      if (!account) throw new Error('The organization has connected no WhatsApp account');
      const send = {
        phoneNumberId: account.phoneNumberId,
        accessToken: account.accessToken,
        to: digitsOf(request.to),
        message: graphMessageOf(request),
        callbackData: request.messageId,
      };
      let answer: GraphAnswer = { outcome: 'unavailable', reason: 'not tried' };
      for (let attempt = 1, wait = firstPauseMs; attempt <= attempts; attempt++, wait *= 2) {
        answer = await client.sendMessage(send);
        if (answer.outcome !== 'unavailable') break;
        options.logger?.warn('WhatsApp is unavailable', {
          messageId: request.messageId,
          reason: answer.reason,
          attempt,
        });
        if (attempt < attempts) await pause(wait);
      }
      switch (answer.outcome) {
        case 'taken':
          return { platformMsgId: answer.wamid };
        case 'refused': {
          const errors = [deliveryErrorOfGraph(answer.error, answer.status)];
          await options.reports.receive(
            { messageId: request.messageId, kind: 'status', status: 'Failed', at: now().toISOString(), errors },
            { provider: WHATSAPP, requestId: `whatsapp-send-${request.messageId}` },
          );
          throw new WhatsAppRefusal(errors);
        }
        case 'unavailable':
          throw new Error(`WhatsApp is unavailable: ${answer.reason}`);
      }
    },
  };
}
