/**
 * A campaign resumed or deleted looks at its waiting messages at once, rather than at their due time:
 * each goes through the gate again, which sends it (the window is open), holds it, or cancels it.
 */
import type { ScheduledChatDocument } from '../../projections/chats/scheduled-chats';
import type { RecordedEvent } from '../ports/event-store';
import type { ReadCollection } from '../ports/read-store';
import type { ProcessManager } from '../process-manager';
import { dispatchScheduledChat, type ChatDispatchDeps } from './chat-dispatcher';

export function campaignChatsManager(
  deps: ChatDispatchDeps,
  chats: ReadCollection<ScheduledChatDocument>,
): ProcessManager {
  return {
    name: 'campaign-chats',
    eventTypes: ['CampaignResumed', 'CampaignDeleted'],
    async handle(recorded: RecordedEvent) {
      const { campaignId } = recorded.data as { campaignId: string };
      for (const chat of await chats.find({ where: { campaignId } })) await dispatchScheduledChat(deps, chat.id);
    },
  };
}
