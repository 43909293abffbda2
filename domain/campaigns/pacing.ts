/**
 * A campaign's pace: at most `maxConcurrentCalls` of its calls in a carrier's hands at once, and new
 * dials spaced so that no more than `callsPerMinute` start in a minute. Each dial takes a slot on the
 * campaign's pacing stream before the provider is asked, and gives it back when the call ends; the
 * stream's expected revision keeps the count exact across replicas. A call that finds no slot is given
 * its turn (`until`): turns are handed out one interval apart, so a 10,000-customer start is spread
 * over time and each waiting call is looked at again once, at its turn.
 */
import { assertNever, type Decider } from '../shared/decider';

export const campaignPacingStreamId = (campaignId: string) => `campaign-pacing-${campaignId}`;

/** Defaults of a campaign that names none (docs/campaign-schedules.md). */
export const DEFAULT_MAX_CONCURRENT_CALLS = 10;
export const DEFAULT_CALLS_PER_MINUTE = 30;

/** 0: no limit of that kind. */
export type PacingLimits = { maxConcurrentCalls: number; callsPerMinute: number };

export type PacingState = {
  /** Calls holding a slot, with when they took it. */
  active: Record<string, string>;
  /** Calls given a turn, with its time. */
  turns: Record<string, string>;
  /** When the next turn is free: a dial before it would start too soon after the one before. */
  nextAt: string | null;
};

export type PacingCommand =
  | ({ type: 'TakeDialSlot'; callId: string; at: string } & PacingLimits)
  | { type: 'ReleaseDialSlot'; callId: string; at: string };

export type PacingEvent =
  | { type: 'DialSlotTaken'; data: { callId: string; at: string; nextAt: string } }
  | { type: 'DialSlotDeferred'; data: { callId: string; until: string; nextAt: string; at: string } }
  | { type: 'DialSlotReleased'; data: { callId: string; at: string } };

const later = (a: string | null, b: string) => (a !== null && a > b ? a : b);
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

export function decide(command: PacingCommand, state: PacingState): PacingEvent[] {
  switch (command.type) {
    case 'TakeDialSlot': {
      const { callId, at } = command;
      if (state.active[callId]) return [];
      const interval = command.callsPerMinute > 0 ? Math.ceil(60_000 / command.callsPerMinute) : 0;
      const turn = state.turns[callId];
      // A call with a turn goes at it; one without goes only when no turn is pending before now.
      const clear = turn !== undefined ? turn <= at : state.nextAt === null || state.nextAt <= at;
      const free = command.maxConcurrentCalls === 0 || Object.keys(state.active).length < command.maxConcurrentCalls;
      if (clear && free) {
        const nextAt = turn !== undefined ? later(state.nextAt, plus(at, interval)) : plus(at, interval);
        return [{ type: 'DialSlotTaken', data: { callId, at, nextAt } }];
      }
      const until = later(state.nextAt, at);
      return [{ type: 'DialSlotDeferred', data: { callId, until, nextAt: plus(until, interval), at } }];
    }
    case 'ReleaseDialSlot':
      return state.active[command.callId] || state.turns[command.callId]
        ? [{ type: 'DialSlotReleased', data: { callId: command.callId, at: command.at } }]
        : [];
    default:
      return assertNever(command);
  }
}

export function evolve(state: PacingState, event: PacingEvent): PacingState {
  switch (event.type) {
    case 'DialSlotTaken': {
      const { [event.data.callId]: _turn, ...turns } = state.turns;
      return { active: { ...state.active, [event.data.callId]: event.data.at }, turns, nextAt: event.data.nextAt };
    }
    case 'DialSlotDeferred':
      return { ...state, turns: { ...state.turns, [event.data.callId]: event.data.until }, nextAt: event.data.nextAt };
    case 'DialSlotReleased': {
      const { [event.data.callId]: _active, ...active } = state.active;
      const { [event.data.callId]: _turn, ...turns } = state.turns;
      return { ...state, active, turns };
    }
    default:
      return assertNever(event);
  }
}

export const pacingDecider: Decider<PacingCommand, PacingEvent, PacingState> = {
  initialState: () => ({ active: {}, turns: {}, nextAt: null }),
  evolve,
  decide,
  // Every call of the campaign takes and gives back a slot: the stream grows with the campaign.
  snapshot: { every: 100, version: 1 },
};
