/**
 * The inactivity timer: closes chats nothing happened in for CHAT_INACTIVITY_TIMEOUT_SECONDS, with the
 * ordinary `CloseChat` (reason `inactive`), so their end takes the usual path (log entry, `chat.ended`
 * webhook, workflow waits). A DuePoller over the `idle_chats` read model finds the chats whose last
 * activity is older than the timeout; the read model may lag behind the chat's stream (a late
 * activity, a close already made), so each chat is loaded and checked again before it is closed, and
 * the close itself asks the aggregate for quiet since the deadline's start (never early, never twice).
 */
import { chatDecider } from '../../domain/chats/chat';
import { inactiveClose } from '../../domain/chats/inactivity';
import type { IdleChatDocument } from '../../projections/chats/idle-chats';
import type { CommandHandler } from '../command-handler';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';
import { DuePoller } from '../scheduling/due-poller';
import { chatStreamId } from './chat-sending';

export type InactivityDeps = { commands: CommandHandler; now: () => Date; timeoutSeconds: number };

/** Closes the chat if it is still open and has been quiet for the timeout; otherwise does nothing (safe to repeat). */
export function closeInactiveChat(deps: InactivityDeps) {
  return async (item: { id: string }): Promise<void> => {
    const stream = chatStreamId(item.id);
    const { state } = await deps.commands.load(chatDecider, stream);
    const close = inactiveClose(state, deps.now(), deps.timeoutSeconds);
    if (!close || state.status === 'none') return;
    await deps.commands.handle(chatDecider, stream, close, {
      organizationId: state.organizationId,
      actor: 'chat-inactivity-timer',
      requestId: `chat-inactive-${item.id}`,
    });
  };
}

export function inactivityTimer(
  deps: InactivityDeps & { chats: ReadCollection<IdleChatDocument>; logger?: Logger },
): DuePoller<IdleChatDocument> {
  const timeoutMs = deps.timeoutSeconds * 1000;
  return new DuePoller(deps.chats, closeInactiveChat(deps), {
    name: 'chat-inactivity',
    // A chat's `dueAt` is its last activity: on a clock the timeout behind, it is due when the timeout has passed.
    now: () => new Date(deps.now().getTime() - timeoutMs),
    // Deadlines are minutes to days long; half a second keeps a short test timeout precise enough.
    intervalMs: 500,
    logger: deps.logger,
  });
}
