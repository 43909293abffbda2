/**
 * The inventory of one provider: the numbers it offers, per country. One stream per provider. The
 * built-in provider's numbers are seeded once (the first event of its stream); an operator can stock
 * more. Whether a number is still available is kept by the number's own stream (phone-number.ts),
 * not here: buying never writes to the inventory, so purchases of different numbers never contend.
 * A long list is recorded in parts (domain/shared/chunks.ts).
 */
import { chunkByBytes } from '../shared/chunks';
import { assertNever, type Decider } from '../shared/decider';
import { invalid } from '../shared/errors';
import { CALLING_CODES, nationalPart } from './phone-number';

export const inventoryStreamId = (provider: string) => `numberInventory-${provider}`;

export type StockedNumber = { number: string; country_iso: string; sms_enabled: boolean; voice_enabled: boolean };

export type InventoryState = { seeded: boolean; numbers: ReadonlyMap<string, StockedNumber> };

export type InventoryCommand =
  | { type: 'SeedInventory'; provider: string; numbers: StockedNumber[]; at: string }
  | { type: 'StockNumbers'; provider: string; numbers: StockedNumber[]; at: string };

export type InventoryEvent =
  | { type: 'InventorySeeded'; data: { provider: string; numbers: StockedNumber[]; at: string } }
  | { type: 'NumbersStocked'; data: { provider: string; numbers: StockedNumber[]; at: string } };

export const inventoryEventTypes = [
  'InventorySeeded',
  'NumbersStocked',
] as const satisfies readonly InventoryEvent['type'][];

/** One string per number that does not fit its country, naming its place in the list. */
export function stockErrors(numbers: readonly StockedNumber[]): string[] {
  return numbers.flatMap((n, i) => {
    const country = n.country_iso.toUpperCase();
    if (!(country in CALLING_CODES)) return [`[${i}].country_iso ${country} is not a supported country`];
    return nationalPart(n.number, country) === null
      ? [`[${i}].number must be an E.164 number of country ${country} (+${CALLING_CODES[country]})`]
      : [];
  });
}

export function decide(command: InventoryCommand, state: InventoryState): InventoryEvent[] {
  switch (command.type) {
    case 'SeedInventory':
      // Several replicas may start together; the seed is recorded once.
      if (state.seeded) return [];
      // The seed is the first part; the rest of a long list is stocked after it.
      return partsOf(fresh(command.numbers, state)).map((numbers, i) => ({
        type: i === 0 ? 'InventorySeeded' : 'NumbersStocked',
        data: { provider: command.provider, numbers, at: command.at },
      }));
    case 'StockNumbers': {
      const errors = stockErrors(command.numbers);
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      return chunkByBytes(fresh(command.numbers, state)).map((numbers) => ({
        type: 'NumbersStocked',
        data: { provider: command.provider, numbers, at: command.at },
      }));
    }
    default:
      return assertNever(command);
  }
}

/** The list in parts of one event each; an empty list is one empty part (a seed is recorded even when empty). */
function partsOf(numbers: StockedNumber[]): StockedNumber[][] {
  const parts = chunkByBytes(numbers);
  return parts.length > 0 ? parts : [[]];
}

/** Numbers not yet in the inventory, each once, country codes upper-cased. */
function fresh(numbers: readonly StockedNumber[], state: InventoryState): StockedNumber[] {
  const seen = new Set<string>();
  return numbers.flatMap((n) => {
    if (state.numbers.has(n.number) || seen.has(n.number)) return [];
    seen.add(n.number);
    return [{ ...n, country_iso: n.country_iso.toUpperCase() }];
  });
}

export function evolve(state: InventoryState, event: InventoryEvent): InventoryState {
  switch (event.type) {
    case 'InventorySeeded':
    case 'NumbersStocked': {
      const numbers = new Map(state.numbers);
      for (const n of event.data.numbers) numbers.set(n.number, n);
      return { seeded: state.seeded || event.type === 'InventorySeeded', numbers };
    }
    default:
      return assertNever(event);
  }
}

export const inventoryDecider: Decider<InventoryCommand, InventoryEvent, InventoryState> = {
  initialState: () => ({ seeded: false, numbers: new Map() }),
  evolve,
  decide,
};
