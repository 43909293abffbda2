/**
 * A call to one customer. It is requested (Queued), then the carrier reports how it went: ringing,
 * answered (In Progress), ended. The carrier's reports arrive through the inbound event path, may come
 * twice or late, and are applied only when they move the call forward: a status never goes back, and
 * an ended call stays ended.
 */
import { assertNever, type Decider } from '../shared/decider';
import { invalid, notFound } from '../shared/errors';

export const callStreamId = (callId: string) => `call-${callId}`;

export type CallStatus = 'Queued' | 'Ringing' | 'In Progress' | 'Completed' | 'No Contact' | 'Failed';
export const FINAL_CALL_STATUSES: readonly CallStatus[] = ['Completed', 'No Contact', 'Failed'];
const RANK: Record<CallStatus, number> = {
  Queued: 0,
  Ringing: 1,
  'In Progress': 2,
  Completed: 3,
  'No Contact': 3,
  Failed: 3,
};
/** Every status a call can have, in the order a call goes through them (RANK's keys: complete by its type). */
export const CALL_STATUSES = Object.keys(RANK) as readonly CallStatus[];

export type CallTarget = {
  organizationId: string;
  campaignId: string;
  campaignName: string;
  /** `loan_id` for collection organizations, `lead_id` for lead generation. */
  customerKeyField: 'loan_id' | 'lead_id';
  customerKey: string;
  customerName: string;
  to: string;
  from: string;
  agentId: string;
  dispositionId: string;
  language: string;
};

export type TranscriptTurn = { speaker: 'BOT' | 'HUMAN'; message: string };

export type CallEnding = {
  status: 'Completed' | 'No Contact' | 'Failed';
  /** Why: completed, busy, no_answer, voicemail, invalid_number, unreachable, customer_hung_up... */
  reason: string;
  durationSeconds: number;
  disposition: { id: string; name: string } | null;
  summary: string;
  extractedData: Record<string, unknown>;
  transcript: TranscriptTurn[];
  transcriptId: string | null;
  recordingId: string | null;
};

export type CallState =
  | { status: 'none' }
  | ({
      status: CallStatus;
      callId: string;
      queuedAt: string;
      startedAt: string | null;
      dialedBy: string | null;
      dialedAt: string | null;
    } & CallTarget);

export type CallCommand =
  | ({ type: 'RequestCall'; callId: string; at: string } & CallTarget)
  | { type: 'DialCall'; provider: string; at: string }
  | { type: 'RecordCallRinging'; at: string }
  | { type: 'RecordCallAnswered'; at: string }
  | ({ type: 'RecordCallEnded'; at: string } & CallEnding);

export type CallEvent =
  | { type: 'CallQueued'; data: { callId: string; at: string } & CallTarget }
  | { type: 'CallDialed'; data: { callId: string; provider: string; at: string } }
  | { type: 'CallRinging'; data: { callId: string; at: string } }
  | { type: 'CallAnswered'; data: { callId: string; at: string } }
  | { type: 'CallEnded'; data: { callId: string; at: string } & CallEnding };

export const callEventTypes = [
  'CallQueued',
  'CallDialed',
  'CallRinging',
  'CallAnswered',
  'CallEnded',
] as const satisfies readonly CallEvent['type'][];

export const CALL_NOT_FOUND = 'Call not found';

/** Whether a report moving the call to `next` moves it forward; anything else is ignored. */
const movesForward = (current: CallStatus, next: CallStatus) => RANK[next] > RANK[current];

export function decide(command: CallCommand, state: CallState): CallEvent[] {
  if (command.type === 'RequestCall') {
    if (state.status !== 'none') throw invalid(`Call ${command.callId} already exists`);
    const { type: _type, ...data } = command;
    return [{ type: 'CallQueued', data }];
  }
  if (state.status === 'none') throw notFound(CALL_NOT_FOUND);
  const { callId } = state;
  switch (command.type) {
    case 'DialCall':
      // A call is handed to a carrier once: after a restart, a dialed call is not dialed again.
      return state.dialedBy === null && state.status === 'Queued'
        ? [{ type: 'CallDialed', data: { callId, provider: command.provider, at: command.at } }]
        : [];
    case 'RecordCallRinging':
      return movesForward(state.status, 'Ringing') ? [{ type: 'CallRinging', data: { callId, at: command.at } }] : [];
    case 'RecordCallAnswered':
      return movesForward(state.status, 'In Progress')
        ? [{ type: 'CallAnswered', data: { callId, at: command.at } }]
        : [];
    case 'RecordCallEnded': {
      if (!movesForward(state.status, command.status)) return [];
      const { type: _type, ...ending } = command;
      return [{ type: 'CallEnded', data: { callId, ...ending } }];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: CallState, event: CallEvent): CallState {
  switch (event.type) {
    case 'CallQueued': {
      const { at, ...target } = event.data;
      return { status: 'Queued', queuedAt: at, startedAt: null, dialedBy: null, dialedAt: null, ...target };
    }
    case 'CallDialed':
      return state.status === 'none' ? state : { ...state, dialedBy: event.data.provider, dialedAt: event.data.at };
    case 'CallRinging':
      return state.status === 'none'
        ? state
        : { ...state, status: 'Ringing', startedAt: state.startedAt ?? event.data.at };
    case 'CallAnswered':
      return state.status === 'none'
        ? state
        : { ...state, status: 'In Progress', startedAt: state.startedAt ?? event.data.at };
    case 'CallEnded':
      return state.status === 'none' ? state : { ...state, status: event.data.status };
    default:
      return assertNever(event);
  }
}

export const callDecider: Decider<CallCommand, CallEvent, CallState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
