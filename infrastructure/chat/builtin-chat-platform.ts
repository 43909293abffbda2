/**
 * The built-in chat platform (alias `builtin`): a chat platform that simulates the network and the
 * customers. It plays a seeded simulated chat (domain/chats/simulation) on a clock scaled by
 * SIMULATION_SPEED (1: real time, 0: at once) and reports each step through `ChatPlatformReports`,
 * exactly as a real platform's webhooks would. Timestamps follow the simulated timeline from the
 * moment the platform took the message.
 *
 * It simulates inbound traffic too (`receiveInbound`): a customer writes first to one of its numbers,
 * the message is offered to the service (`InboundChats`, as a real platform's webhook would), and when
 * the service takes it the platform plays the conversation here like a sent message's.
 */
import type { ChatPlatformReports, ChatReport } from '../../application/chats/chat-platform-reports';
import type { InboundChatAnswer, InboundChats } from '../../application/chats/inbound-chats';
import type { ChatPlatform, ChatSendRequest } from '../../application/ports/chat-platform';
import type { Logger } from '../../application/ports/logger';
import { inboundOpeningOf, platformMsgIdOf, simulateChat } from '../../domain/chats/simulation/simulate-chat';
import { timelines, type Until } from '../shared/timelines';

export type BuiltinChatPlatformOptions = {
  reports: ChatPlatformReports;
  /** SIMULATION_SPEED: simulated seconds take `speed` real seconds. */
  speed: number;
  logger?: Logger;
  now?: () => Date;
  /** Where the chats customers open to its numbers are offered, with the ids they get (no inbound traffic without it). */
  inbound?: { chats: InboundChats; newId: () => string };
};

export type BuiltinChatPlatform = ChatPlatform & {
  resume(request: ChatSendRequest): Promise<void>;
  /** A simulated customer `from` writes first to `number`: offered to the service, and played when it takes it. */
  receiveInbound(chat: { number: string; from: string }): Promise<InboundChatAnswer>;
  idle(): Promise<void>;
  stop(): Promise<void>;
};

export function builtinChatPlatform(options: BuiltinChatPlatformOptions): BuiltinChatPlatform {
  const messages = timelines({ speed: options.speed, now: options.now, logger: options.logger, what: 'chat platform' });

  /** Plays a message's simulated timeline, reporting each step when the timeline reaches it. */
  async function play(request: ChatSendRequest, until: Until): Promise<void> {
    const chat = simulateChat({
      seed: request.messageId,
      at: request.at,
      organizationType: request.organizationType,
      to: request.to,
      customer: request.customer,
      templateLanguage: request.templateLanguage,
      conversation: request.conversation,
      inbound: request.direction === 'inbound',
    });
    const start = Date.parse(request.at);
    const at = (seconds: number) => new Date(start + seconds * 1000).toISOString();
    const report = (r: ChatReport) =>
      messages.persistently(() =>
        options.reports.receive(r, { provider: 'builtin', requestId: `builtin-${request.messageId}` }),
      );
    const { messageId } = request;
    for (const step of chat.steps) {
      await until(step.afterSeconds);
      const when = at(step.afterSeconds);
      switch (step.kind) {
        case 'status':
          await report({
            messageId,
            kind: 'status',
            status: step.status,
            at: when,
            platformMsgId: chat.platformMsgId,
            ...(step.status === 'Failed' && { errors: step.errors }),
          });
          break;
        case 'message':
          await report({
            messageId,
            kind: 'message',
            entryId: step.entryId,
            role: step.role,
            content: step.content,
            at: when,
          });
          break;
        case 'closed':
          await report({
            messageId,
            kind: 'closed',
            at: when,
            reason: step.reason,
            disposition: step.disposition,
            summary: step.summary,
          });
          break;
      }
    }
  }

  return {
    alias: 'builtin',
    // The platform takes the message at once and plays it out in the background, as a network would;
    // after a stop it is taken but goes nowhere, and plays on after the restart (`resume`).
    async send(request) {
      messages.start(request.messageId, (until) => play(request, until));
      return { platformMsgId: platformMsgIdOf(request.messageId) };
    },
    /** A message taken before a restart plays on from where its timeline is now (at once to its end when that has passed). */
    async resume(request) {
      messages.start(request.messageId, (until) => play(request, until), messages.elapsedSince(request.at));
    },
    async receiveInbound({ number, from }) {
      if (!options.inbound) return { outcome: 'refused', reason: 'number_not_owned' };
      const messageId = options.inbound.newId();
      const answer = await options.inbound.chats.offer({
        provider: 'builtin',
        messageId,
        to: number,
        from,
        content: inboundOpeningOf(messageId),
        at: (options.now?.() ?? new Date()).toISOString(),
        requestId: `builtin-inbound-${messageId}`,
      });
      if (answer.outcome === 'answered') messages.start(messageId, (until) => play(answer.request, until));
      return answer;
    },
    /** Resolves when every message in progress has played out (tests, shutdown). */
    idle: () => messages.idle(),
    /** Stops playing messages (shutdown). Chats cut short play on after the restart (`resume`). */
    stop: () => messages.stop(),
  };
}
