/**
 * What a dispatch reads of the blacklist: the aggregate itself, from the event store (not the read
 * model, which may lag), with the revision of its stream. The call and chat dispatchers read it before
 * they record a dial or a send, and again after it (application/calls/call-dispatcher.ts).
 */
import {
  blacklistDecider,
  blacklistKey,
  blacklistStreamId,
  normalizePhoneNumber,
} from '../../domain/blacklist/blacklist';
import type { BlacklistReading } from '../../domain/calls/call';
import type { CommandHandler } from '../command-handler';

export async function readBlacklist(
  commands: CommandHandler,
  organizationId: string,
  phone: string,
): Promise<BlacklistReading> {
  // From the cached fold on: one read of the events appended since, usually none.
  const { state, revision } = await commands.load(blacklistDecider, blacklistStreamId(organizationId));
  const normalized = normalizePhoneNumber(phone);
  return { listed: normalized !== null && state.entries.has(blacklistKey(normalized)), revision };
}
