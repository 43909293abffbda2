/**
 * An organization's blacklist: numbers that are never dialed or messaged. One stream per
 * organization. Numbers are normalized (spaces, dashes, dots and parentheses dropped; a leading `+`
 * kept) and identified by their digits, so `+91 98123-45678` and `919812345678` are one entry.
 * Adding a number already listed, or removing one that is not, changes nothing and is not an error.
 * A long list is recorded as several events of one append at most (domain/shared/chunks.ts); deciding
 * a command again after some of them were recorded records only the rest.
 */
import { chunkByBytes } from '../shared/chunks';
import { assertNever, type Decider } from '../shared/decider';
import { invalid } from '../shared/errors';

export const blacklistStreamId = (organizationId: string) => `blacklist-${organizationId}`;

export const MAX_NAME_LENGTH = 200;

/** The number as stored (`+` kept when given), or null when it is not 7 to 15 digits. */
export function normalizePhoneNumber(raw: string): string | null {
  const compact = raw.trim().replace(/[\s\-().]/g, '');
  return /^\+?[0-9]{7,15}$/.test(compact) ? compact : null;
}

/** What identifies an entry: the digits alone. */
export const blacklistKey = (normalized: string) => normalized.replace(/^\+/, '');

/** An entry's id among all organizations' entries (the blacklist read model's document id). */
export const blacklistDocumentId = (organizationId: string, number: string) =>
  `${organizationId}/${blacklistKey(number)}`;

export type BlacklistEntry = { number: string; name: string | null };

export type BlacklistState = { entries: ReadonlyMap<string, BlacklistEntry> };

export type BlacklistCommand =
  | { type: 'AddToBlacklist'; organizationId: string; entries: { number: string; name?: string | null }[]; at: string }
  | { type: 'RemoveFromBlacklist'; organizationId: string; numbers: string[]; at: string };

export type BlacklistEvent =
  | { type: 'NumbersBlacklisted'; data: { organizationId: string; entries: BlacklistEntry[]; at: string } }
  | { type: 'NumbersRemovedFromBlacklist'; data: { organizationId: string; numbers: string[]; at: string } };

export const blacklistEventTypes = [
  'NumbersBlacklisted',
  'NumbersRemovedFromBlacklist',
] as const satisfies readonly BlacklistEvent['type'][];

/** Normalized numbers of a request, or a validation failure naming every bad item. */
export function normalizeAll(numbers: readonly string[]): string[] {
  const errors: string[] = [];
  const normalized = numbers.map((raw, i) => {
    const number = normalizePhoneNumber(raw);
    if (number === null)
      errors.push(`[${i}].number must be 7 to 15 digits with an optional leading + (got ${JSON.stringify(raw)})`);
    return number ?? '';
  });
  if (errors.length > 0) throw invalid('Validation failed', { errors });
  return normalized;
}

/** How many different numbers a request names (once normalized). */
export const distinctCount = (numbers: readonly string[]) => new Set(normalizeAll(numbers).map(blacklistKey)).size;

export function decide(command: BlacklistCommand, state: BlacklistState): BlacklistEvent[] {
  switch (command.type) {
    case 'AddToBlacklist': {
      const normalized = normalizeAll(command.entries.map((e) => e.number));
      const added = new Map<string, BlacklistEntry>();
      command.entries.forEach((entry, i) => {
        const number = normalized[i]!;
        const key = blacklistKey(number);
        const name = entry.name?.trim() || null;
        const listed = added.get(key) ?? state.entries.get(key);
        // A listed number is recorded again only to change its name.
        if (listed && (name === null || name === listed.name)) return;
        added.set(key, { number: listed?.number ?? number, name });
      });
      return chunkByBytes([...added.values()]).map((entries) => ({
        type: 'NumbersBlacklisted',
        data: { organizationId: command.organizationId, entries, at: command.at },
      }));
    }
    case 'RemoveFromBlacklist': {
      const keys = new Set(normalizeAll(command.numbers).map(blacklistKey));
      const removed = [...keys].filter((key) => state.entries.has(key)).map((key) => state.entries.get(key)!.number);
      return chunkByBytes(removed).map((numbers) => ({
        type: 'NumbersRemovedFromBlacklist',
        data: { organizationId: command.organizationId, numbers, at: command.at },
      }));
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: BlacklistState, event: BlacklistEvent): BlacklistState {
  const entries = new Map(state.entries);
  switch (event.type) {
    case 'NumbersBlacklisted':
      for (const entry of event.data.entries) entries.set(blacklistKey(entry.number), entry);
      return { entries };
    case 'NumbersRemovedFromBlacklist':
      for (const number of event.data.numbers) entries.delete(blacklistKey(number));
      return { entries };
    default:
      return assertNever(event);
  }
}

export const blacklistDecider: Decider<BlacklistCommand, BlacklistEvent, BlacklistState> = {
  initialState: () => ({ entries: new Map() }),
  evolve,
  decide,
};
