/**
 * The built-in chat platform passes the chat platform contract, played at once (SIMULATION_SPEED 0).
 * Its messages' courses are seeded by their ids: the suite picks ids whose simulated course is the one
 * each case asks for. A course reported again is the message resumed (as after a restart), which
 * reports every step once more.
 */
import { ChatPlatformReports } from '../../application/chats/chat-platform-reports';
import { CommandHandler } from '../../application/command-handler';
import type { ChatSendRequest } from '../../application/ports/chat-platform';
import { simulateChat, type ChatOutcome } from '../../domain/chats/simulation/simulate-chat';
import { builtinChatPlatform } from '../../infrastructure/chat/builtin-chat-platform';
import { MemoryEventStore } from '../../infrastructure/memory/memory-event-store';
import { chatPlatformContract, type ChatFate } from './chat-platform.contract';

const TO = '+919812345678';

const simulated = (request: Pick<ChatSendRequest, 'messageId' | 'at' | 'to' | 'customer' | 'conversation'>) =>
  simulateChat({
    seed: request.messageId,
    at: request.at,
    organizationType: 'collection',
    to: request.to,
    customer: request.customer,
    templateLanguage: 'en',
    conversation: request.conversation,
  });

/** A message id whose simulated course ends in `outcome`. */
function seedFor(outcome: ChatOutcome, taken: Set<string>): string {
  for (let i = 0; ; i++) {
    const messageId = `contract-${outcome}-${i}`;
    if (taken.has(messageId)) continue;
    const chat = simulated({ messageId, at: new Date().toISOString(), to: TO, customer: {}, conversation: null });
    if (chat.outcome === outcome) {
      taken.add(messageId);
      return messageId;
    }
  }
}

chatPlatformContract('builtin', async () => {
  const events = new MemoryEventStore();
  const commands = new CommandHandler(events);
  const reports = new ChatPlatformReports(commands);
  const platform = builtinChatPlatform({ reports, speed: 0 });
  const taken = new Set<string>();
  return {
    platform,
    events,
    commands,
    reports,
    organizationId: 'o1',
    message: (fate: ChatFate) => ({ messageId: seedFor(fate, taken), to: TO }),
    settled: () => platform.idle(),
    repeat: (request) => platform.resume(request),
    errorsSent: (request) => {
      const failed = simulated(request).steps.find((s) => s.kind === 'status' && s.status === 'Failed');
      return failed && 'errors' in failed ? failed.errors : [];
    },
    close: () => platform.stop(),
  };
});
