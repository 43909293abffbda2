/**
 * A call to one customer. It is requested (Queued), then the carrier reports how it went: ringing,
 * answered (In Progress), ended. The carrier's reports arrive through the inbound event path, may come
 * twice or late, and are applied only when they move the call forward: a status never goes back, and
 * an ended call stays ended.
 *
 * A call the provider plays inside a process (the built-in carrier) has a player: the replica that
 * dialed it (`DialCall.player`) and plays it. When that replica dies another one adopts the call
 * (`AdoptCall`) and plays it on; an adoption names the player it takes the call from and is taken
 * only while that is still the call's player, so of two replicas adopting the same call at once only
 * the first gets it. Calls dialed before players were recorded have none (`player` null): any replica
 * may adopt them.
 *
 * A call is dialed only to a number that is not on the organization's blacklist at the time of the
 * dial: `DialCall` carries what the dispatcher read of the blacklist aggregate (whether the number is
 * on it, at which revision of its stream), and a listed number ends the call at once as Failed, reason
 * `blacklisted`, instead of dialing it. How the read is kept race-free: application/calls/call-dispatcher.ts.
 *
 * A call may also come in: a customer calls a number of the organization that has an inbound agent
 * (docs/inbound.md). `ReceiveCall` records it (`CallReceived`, `direction: inbound`) already in the
 * carrier's hands and ringing, with its provider and player as a dial would record them, so from
 * there it goes the way of a dialed call (answered, ended, adopted by another replica). A caller on
 * the blacklist is refused: the call ends at once as Failed, reason `blacklisted`. Calls recorded
 * before directions existed were all outbound (`CallQueued` is outbound).
 *
 * A carrier that streams the agent's speech into the call, and records it, brings the call's media
 * apart from its reports of ringing and ending (`AttachCallMedia`): the agent's lines as spoken so
 * far, and a recording once the carrier has one, which may be after the call ended. A transcript
 * attached is the call's transcript as of then, replacing the one attached before; the same one again,
 * or an older one (a prefix of it), records nothing, nor does a recording attached before.
 */
import { assertNever, type Decider } from '../shared/decider';
import { invalid, notFound } from '../shared/errors';

export const callStreamId = (callId: string) => `call-${callId}`;

/** `Scheduled`: queued, waiting for its campaign's window to open (docs/campaign-schedules.md). */
export type CallStatus = 'Queued' | 'Scheduled' | 'Ringing' | 'In Progress' | 'Completed' | 'No Contact' | 'Failed';
export const FINAL_CALL_STATUSES: readonly CallStatus[] = ['Completed', 'No Contact', 'Failed'];
const RANK: Record<CallStatus, number> = {
  Queued: 0,
  Scheduled: 0,
  Ringing: 1,
  'In Progress': 2,
  Completed: 3,
  'No Contact': 3,
  Failed: 3,
};
/** Every status a call can have, in the order a call goes through them (RANK's keys: complete by its type). */
export const CALL_STATUSES = Object.keys(RANK) as readonly CallStatus[];

export type CallDirection = 'outbound' | 'inbound';

/**
 * Who a call is with. An outbound call goes `from` the organization's number `to` the customer's; an
 * inbound one `from` the caller `to` the organization's number. An inbound caller no customer has the
 * number of has no customer: `campaignId`, `campaignName`, `customerKey` and `customerName` are empty.
 */
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
      /** The replica playing the call (null before it is dialed, or when its dial recorded none). */
      player: string | null;
      /** When a call waiting for its campaign's window is to be dialed; null: as soon as it is queued. */
      scheduledFor?: string | null;
      direction: CallDirection;
      /** What `AttachCallMedia` attached: the transcript (under `transcriptId`) and the recordings. */
      media: AttachedMedia;
    } & CallTarget &
      CallAttempt);

export type AttachedMedia = { transcript: TranscriptTurn[]; transcriptId: string | null; recordingIds: string[] };
const NO_MEDIA: AttachedMedia = { transcript: [], transcriptId: null, recordingIds: [] };

/** The id of the transcript attached to a call: one per call, so the same call's lines land in one document. */
export const attachedTranscriptIdOf = (callId: string) => `${callId}-transcript`;

/** What a dispatch read of the blacklist aggregate: whether the call's number is on it, at that stream revision (-1: empty). */
export type BlacklistReading = { listed: boolean; revision: number };

/** The end reason, and the log's summary, of a call refused because its number is blacklisted. */
export const BLACKLISTED_REASON = 'blacklisted';
export const BLACKLISTED_SUMMARY = 'The call was not placed: the number was blacklisted before it was dialed.';
/** The log's summary of an inbound call refused because its caller is blacklisted. */
export const BLACKLISTED_INBOUND_SUMMARY = 'The call was refused: the caller is blacklisted.';

/** A call made again for its customer (a campaign's retry): its attempt number, the call before it, and not before when. */
export type CallAttempt = { attempt?: number; retryOf?: string; notBefore?: string };

export type CallCommand =
  | ({ type: 'RequestCall'; callId: string; at: string } & CallTarget & CallAttempt)
  /**
   * A call that came in to one of the organization's numbers, already with its provider (and the
   * replica playing it); `blacklist`: what the receiver read of the caller's number on the blacklist.
   */
  | ({
      type: 'ReceiveCall';
      callId: string;
      at: string;
      provider: string;
      player?: string;
      blacklist: BlacklistReading;
    } & CallTarget)
  /** Holds an undialed call until `scheduledFor` (its campaign's window, a pause); `reason` says which. */
  | { type: 'ScheduleCall'; scheduledFor: string; reason: string; at: string }
  /** `player`: the replica that plays the call (optional: events recorded before players were kept have none). */
  | { type: 'DialCall'; provider: string; at: string; player?: string; blacklist: BlacklistReading }
  /** `from`: the player the call is taken from, as the adopter saw it (null for a call that has none). */
  | { type: 'AdoptCall'; player: string; from: string | null; at: string }
  | { type: 'RecordCallRinging'; at: string }
  | { type: 'RecordCallAnswered'; at: string }
  | ({ type: 'RecordCallEnded'; at: string } & CallEnding)
  /** The call's transcript as of `at` (the agent's lines), and/or a recording the carrier made of it. */
  | { type: 'AttachCallMedia'; at: string; transcript?: TranscriptTurn[]; recordingId?: string };

export type CallEvent =
  | { type: 'CallQueued'; data: { callId: string; at: string } & CallTarget & CallAttempt }
  | {
      type: 'CallReceived';
      data: {
        callId: string;
        at: string;
        direction: 'inbound';
        provider: string;
        player?: string;
        blacklistRevision: number;
      } & CallTarget;
    }
  /** `blacklistRevision`: the revision of the blacklist the dial was decided on (absent on calls dialed before it was kept). */
  | {
      type: 'CallDialed';
      data: { callId: string; provider: string; at: string; player?: string; blacklistRevision?: number };
    }
  | { type: 'CallAdopted'; data: { callId: string; player: string; from: string | null; at: string } }
  | {
      type: 'CallScheduled';
      data: { callId: string; campaignId: string; scheduledFor: string; reason: string; at: string };
    }
  | { type: 'CallRinging'; data: { callId: string; at: string } }
  | { type: 'CallAnswered'; data: { callId: string; at: string } }
  | { type: 'CallEnded'; data: { callId: string; at: string } & CallEnding }
  | {
      type: 'CallMediaAttached';
      data: {
        callId: string;
        at: string;
        transcript?: TranscriptTurn[];
        transcriptId?: string;
        recordingId?: string;
      };
    };

/**
 * The events of a call's course, which its log entry follows. `CallAdopted` is not among them: it only
 * moves the call from one replica to another, which no log shows.
 */
export const callEventTypes = [
  'CallQueued',
  'CallReceived',
  'CallScheduled',
  'CallDialed',
  'CallRinging',
  'CallAnswered',
  'CallEnded',
  'CallMediaAttached',
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
  if (command.type === 'ReceiveCall') return receive(command, state);
  if (state.status === 'none') throw notFound(CALL_NOT_FOUND);
  const { callId } = state;
  switch (command.type) {
    case 'ScheduleCall': {
      // Held again for the same time (another replica, a repeated step) records nothing more.
      if (!waiting(state) || state.scheduledFor === command.scheduledFor) return [];
      const { scheduledFor, reason, at } = command;
      return [{ type: 'CallScheduled', data: { callId, campaignId: state.campaignId, scheduledFor, reason, at } }];
    }
    case 'DialCall':
      // A call is handed to a carrier once: after a restart, a dialed call is not dialed again.
      if (!waiting(state)) return [];
      if (command.blacklist.listed) return [{ type: 'CallEnded', data: { callId, ...blacklistedEnding(command.at) } }];
      return [
        {
          type: 'CallDialed',
          data: {
            callId,
            provider: command.provider,
            at: command.at,
            ...(command.player !== undefined && { player: command.player }),
            blacklistRevision: command.blacklist.revision,
          },
        },
      ];
    case 'AdoptCall':
      // Taken only from the player the adopter saw: another replica adopted it first otherwise. An
      // undialed call has nobody playing it, an ended one has nothing left to play.
      return state.dialedBy !== null &&
        !FINAL_CALL_STATUSES.includes(state.status) &&
        state.player === command.from &&
        command.player !== command.from
        ? [{ type: 'CallAdopted', data: { callId, player: command.player, from: command.from, at: command.at } }]
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
    case 'AttachCallMedia':
      return attach(command, state);
    default:
      return assertNever(command);
  }
}

/** An inbound call is recorded once: the same call reported again (a provider's retry) records nothing more. */
function receive(command: Extract<CallCommand, { type: 'ReceiveCall' }>, state: CallState): CallEvent[] {
  if (state.status !== 'none') {
    if (state.direction === 'inbound' && state.organizationId === command.organizationId) return [];
    throw invalid(`Call ${command.callId} already exists`);
  }
  const { type: _type, blacklist, player, ...target } = command;
  const received: CallEvent = {
    type: 'CallReceived',
    data: {
      ...target,
      direction: 'inbound',
      ...(player !== undefined && { player }),
      blacklistRevision: blacklist.revision,
    },
  };
  if (!blacklist.listed) return [received];
  return [
    received,
    {
      type: 'CallEnded',
      data: { callId: command.callId, ...blacklistedEnding(command.at, BLACKLISTED_INBOUND_SUMMARY) },
    },
  ];
}

/**
 * Media belongs to a call in the carrier's hands (dialed or received), ended or not: a carrier's
 * recording may come after the end. What was attached already is not attached again.
 */
function attach(
  command: Extract<CallCommand, { type: 'AttachCallMedia' }>,
  state: Extract<CallState, { callId: string }>,
): CallEvent[] {
  if (state.dialedBy === null) throw invalid(`Call ${state.callId} was not dialed: it has no media`);
  const { media, callId } = state;
  const transcript =
    command.transcript && command.transcript.length > 0 && !isPrefixOf(command.transcript, media.transcript)
      ? command.transcript.map(({ speaker, message }) => ({ speaker, message }))
      : undefined;
  const recordingId =
    command.recordingId && !media.recordingIds.includes(command.recordingId) ? command.recordingId : undefined;
  if (!transcript && !recordingId) return [];
  return [
    {
      type: 'CallMediaAttached',
      data: {
        callId,
        at: command.at,
        ...(transcript && { transcript, transcriptId: media.transcriptId ?? attachedTranscriptIdOf(callId) }),
        ...(recordingId && { recordingId }),
      },
    },
  ];
}

/** Queued or scheduled, and not yet in a carrier's hands. */
const waiting = (state: Extract<CallState, { callId: string }>) =>
  state.dialedBy === null && (state.status === 'Queued' || state.status === 'Scheduled');

/** Whether `turns` are the first turns of `of` (the same transcript, or one older than it). */
const isPrefixOf = (turns: TranscriptTurn[], of: TranscriptTurn[]) =>
  turns.length <= of.length &&
  turns.every((turn, i) => turn.speaker === of[i]?.speaker && turn.message === of[i]?.message);

/** The end of a call that failed before anyone spoke: nothing said, nothing recorded. */
export const failedEnding = (at: string, reason: string, summary: string): { at: string } & CallEnding => ({
  at,
  status: 'Failed',
  reason,
  durationSeconds: 0,
  disposition: null,
  summary,
  extractedData: {},
  transcript: [],
  transcriptId: null,
  recordingId: null,
});

/** The end of a call refused because its number is blacklisted: nothing was dialed (or answered). */
export const blacklistedEnding = (at: string, summary = BLACKLISTED_SUMMARY): { at: string } & CallEnding =>
  failedEnding(at, BLACKLISTED_REASON, summary);

export function evolve(state: CallState, event: CallEvent): CallState {
  switch (event.type) {
    case 'CallQueued': {
      const { at, ...target } = event.data;
      return {
        status: 'Queued',
        queuedAt: at,
        startedAt: null,
        dialedBy: null,
        dialedAt: null,
        player: null,
        direction: 'outbound',
        media: NO_MEDIA,
        ...target,
      };
    }
    case 'CallReceived': {
      // In the carrier's hands and ringing from the moment it is recorded, as a dialed call that rings.
      const { at, direction, provider, player, blacklistRevision: _revision, callId, ...target } = event.data;
      return {
        status: 'Ringing',
        callId,
        queuedAt: at,
        startedAt: at,
        dialedBy: provider,
        dialedAt: at,
        player: player ?? null,
        direction,
        media: NO_MEDIA,
        ...target,
      };
    }
    case 'CallScheduled':
      return state.status === 'none' ? state : { ...state, status: 'Scheduled', scheduledFor: event.data.scheduledFor };
    case 'CallDialed':
      return state.status === 'none'
        ? state
        : {
            ...state,
            status: state.status === 'Scheduled' ? 'Queued' : state.status,
            dialedBy: event.data.provider,
            dialedAt: event.data.at,
            player: event.data.player ?? null,
          };
    case 'CallAdopted':
      return state.status === 'none' ? state : { ...state, player: event.data.player };
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
    case 'CallMediaAttached': {
      if (state.status === 'none') return state;
      const { transcript, transcriptId, recordingId } = event.data;
      const { media } = state;
      return {
        ...state,
        media: {
          transcript: transcript ?? media.transcript,
          transcriptId: transcriptId ?? media.transcriptId,
          recordingIds: recordingId ? [...media.recordingIds, recordingId] : media.recordingIds,
        },
      };
    }
    default:
      return assertNever(event);
  }
}

export const callDecider: Decider<CallCommand, CallEvent, CallState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
