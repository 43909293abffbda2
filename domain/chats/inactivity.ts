/**
 * Chats that go quiet: a platform may never report that a conversation is over (a customer who never
 * answers, or stops answering), so a chat with no activity for the configured timeout is closed with
 * reason `inactive` and no disposition. Its deadline is its last activity (chat.ts) plus the timeout.
 */
import type { ChatCommand, ChatState } from './chat';

export const INACTIVE_REASON = 'inactive';

/** A duration as people say it: days or hours when whole (24 hours stays "24 hours"), else minutes, else seconds. */
export function durationText(seconds: number): string {
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (seconds > 86_400 && seconds % 86_400 === 0) return unit(seconds / 86_400, 'day');
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

export const inactivitySummary = (timeoutSeconds: number) =>
  `No activity for ${durationText(timeoutSeconds)}; the conversation was closed.`;

/**
 * The command that closes a chat quiet for `timeoutSeconds` at `now`, or null when it ended already or
 * is not due yet. The command asks for quiet since the deadline's start, so an activity recorded
 * between this look and the close keeps the chat open (the decider checks it again).
 */
export function inactiveClose(
  state: ChatState,
  now: Date,
  timeoutSeconds: number,
): Extract<ChatCommand, { type: 'CloseChat' }> | null {
  if (state.status === 'none' || state.ended) return null;
  const quietSince = new Date(now.getTime() - timeoutSeconds * 1000).toISOString();
  if (Date.parse(state.lastActivityAt) > Date.parse(quietSince)) return null;
  return {
    type: 'CloseChat',
    at: now.toISOString(),
    reason: INACTIVE_REASON,
    disposition: null,
    summary: inactivitySummary(timeoutSeconds),
    quietSince,
  };
}
