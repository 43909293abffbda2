/**
 * A chat message to one customer: a template sent through a chat platform, its delivery statuses, the
 * conversation that may follow, and one end. It is requested, handed to the platform once, then the
 * platform reports back through the inbound event path. Reports may repeat or arrive out of order and
 * are applied only when they move the message forward:
 *
 * - statuses go Accepted, Sent, Delivered, Read and never back (a late Delivered after Read is ignored);
 * - Failed is taken only before Delivered: a message the customer's device received has not failed, so
 *   a Failed report after Delivered (or Read) is ignored; Failed is final and ends the chat at once;
 * - the chat ends exactly once: on Failed, or when the platform reports the conversation closed (or
 *   the inactivity timer closes it); nothing is recorded after the end;
 * - its last activity is the latest time any of its events carries: a late report with an earlier
 *   time does not move it back. A close that asks for quiet (`quietSince`) is ignored when something
 *   happened after that time, so the inactivity timer never closes a chat early.
 *
 * A message the platform plays inside a process (the built-in one) has a player: the replica that
 * dispatched it (`DispatchChat.player`) and plays its conversation. When that replica dies another one
 * adopts the message (`AdoptChat`) and plays it on; an adoption names the player it takes the message
 * from and is taken only while that is still its player, so of two replicas adopting it at once only
 * the first gets it. An adoption is not activity: it leaves the last activity where it was. Messages
 * dispatched before players were recorded have none (`player` null): any replica may adopt them.
 *
 * A message is sent only to a number that is not on the organization's blacklist at the time of the
 * dispatch: `DispatchChat` carries what the dispatcher read of the blacklist aggregate, and a listed
 * number fails the message at once (delivery error 5003, `blacklisted`) instead of sending it. The
 * read is kept race-free as the call dispatcher's is (application/calls/call-dispatcher.ts).
 *
 * A chat may also come in: a customer writes first to a number of the organization that has an
 * inbound agent (docs/inbound.md). `ReceiveChat` records it (`ChatReceived`, `direction: inbound`):
 * the customer's message opens the conversation, it is Delivered (to us) and in the platform's hands,
 * with its provider and player as a dispatch would record them; from there it goes the way of a sent
 * message (read, answered, closed, adopted by another replica). A sender on the blacklist is refused:
 * the chat fails at once (delivery error 5003, `blacklisted`) and ends. Chats recorded before
 * directions existed were all outbound (`ChatRequested` is outbound).
 */
import { isCanonicalIsoTime } from '../shared/calendar';
import { assertNever, type Decider } from '../shared/decider';
import { conflict, notFound } from '../shared/errors';
import type { BlacklistReading, CallDirection } from '../calls/call';
import { deliveryError, type DeliveryError } from './delivery-errors';

export type ChatStatus = 'Accepted' | 'Sent' | 'Delivered' | 'Read' | 'Failed';
export const CHAT_STATUSES: readonly ChatStatus[] = ['Accepted', 'Sent', 'Delivered', 'Read', 'Failed'];
const RANK: Record<Exclude<ChatStatus, 'Failed'>, number> = { Accepted: 0, Sent: 1, Delivered: 2, Read: 3 };

export const CHAT_NOT_FOUND = 'Chat message not found';

// A delivery error as spec 2.3 shows it: defined with the catalog of delivery errors.
export type { DeliveryError } from './delivery-errors';
export type ConversationRole = 'assistant' | 'user';
export type DispositionRef = { id: string; name: string };

export type ChatTarget = {
  organizationId: string;
  campaignId: string;
  campaignName: string;
  customerKeyField: 'loan_id' | 'lead_id';
  customerKey: string;
  customerName: string;
  to: string;
  templateId: string;
  /** The template filled from the customer's record: the message the platform sends. */
  content: string;
  /** Language code of the template. */
  language: string;
  /** Set when the chat has conversation settings: the agent answers replies, the end gets a disposition. */
  agentId: string | null;
  dispositionId: string | null;
};

export type ChatState =
  | { status: 'none' }
  | ({
      status: ChatStatus;
      messageId: string;
      requestedAt: string;
      dispatchedBy: string | null;
      dispatchedAt: string | null;
      /** The replica playing the message (null before it is dispatched, or when its dispatch recorded none). */
      player: string | null;
      platformMsgId: string | null;
      entries: ReadonlySet<string>;
      ended: boolean;
      lastActivityAt: string;
      direction: CallDirection;
      /** The sender of an inbound chat; null for one we sent. */
      from: string | null;
      /** When a message waiting for its campaign's window is to be sent; absent: as soon as requested. */
      scheduledFor?: string;
    } & ChatTarget);

export type ChatCommand =
  | ({ type: 'RequestChat'; messageId: string; at: string } & ChatTarget)
  /**
   * A chat a customer opened with a message (`content`) to one of the organization's numbers (`to`),
   * `from` the customer's number; `blacklist`: what the receiver read of it on the blacklist.
   */
  | ({
      type: 'ReceiveChat';
      messageId: string;
      at: string;
      from: string;
      provider: string;
      player?: string;
      blacklist: BlacklistReading;
    } & ChatTarget)
  /** Holds an unsent message until `scheduledFor` (its campaign's window, a pause); `reason` says which. */
  | { type: 'ScheduleChat'; scheduledFor: string; reason: string; at: string }
  /** `player`: the replica that plays the message (optional: events recorded before players were kept have none). */
  | { type: 'DispatchChat'; provider: string; at: string; player?: string; blacklist: BlacklistReading }
  /** `from`: the player the message is taken from, as the adopter saw it (null for a message that has none). */
  | { type: 'AdoptChat'; player: string; from: string | null; at: string }
  | { type: 'RecordChatStatus'; status: ChatStatus; at: string; platformMsgId?: string; errors?: DeliveryError[] }
  | { type: 'RecordChatMessage'; entryId: string; role: ConversationRole; content: string; at: string }
  | {
      type: 'CloseChat';
      at: string;
      reason: string;
      disposition: DispositionRef | null;
      summary: string;
      /** Close only if nothing happened after this time. */ quietSince?: string;
    };

type Id = { messageId: string; at: string };
export type ChatEvent =
  | { type: 'ChatRequested'; data: Id & ChatTarget }
  | {
      type: 'ChatReceived';
      data: Id &
        ChatTarget & {
          direction: 'inbound';
          from: string;
          provider: string;
          player?: string;
          blacklistRevision: number;
        };
    }
  /** `blacklistRevision`: the revision of the blacklist the dispatch was decided on (absent on older dispatches). */
  | { type: 'ChatScheduled'; data: Id & { campaignId: string; scheduledFor: string; reason: string } }
  | { type: 'ChatDispatched'; data: Id & { provider: string; player?: string; blacklistRevision?: number } }
  | { type: 'ChatAdopted'; data: Id & { player: string; from: string | null } }
  | { type: 'ChatAccepted'; data: Id & { platformMsgId: string } }
  | { type: 'ChatSent'; data: Id }
  | { type: 'ChatDelivered'; data: Id }
  | { type: 'ChatRead'; data: Id }
  | { type: 'ChatFailed'; data: Id & { errors: DeliveryError[] } }
  | { type: 'ChatMessageAdded'; data: Id & { entryId: string; role: ConversationRole; content: string } }
  | {
      type: 'ChatEnded';
      data: Id & { status: ChatStatus; reason: string; disposition: DispositionRef | null; summary: string };
    };

/**
 * The events of a message's course, which its log entry and its inactivity follow. `ChatAdopted` is not
 * among them: it only moves the message from one replica to another, which is neither shown nor activity.
 */
export const chatEventTypes = [
  'ChatRequested',
  'ChatReceived',
  'ChatScheduled',
  'ChatDispatched',
  'ChatAccepted',
  'ChatSent',
  'ChatDelivered',
  'ChatRead',
  'ChatFailed',
  'ChatMessageAdded',
  'ChatEnded',
] as const satisfies readonly ChatEvent['type'][];

const STATUS_EVENT = { Sent: 'ChatSent', Delivered: 'ChatDelivered', Read: 'ChatRead' } as const;

/** Whether a status report moves the message forward; anything else is a repeat or late and ignored. */
export function movesForward(current: ChatStatus, next: ChatStatus): boolean {
  if (current === 'Failed') return false;
  if (next === 'Failed') return RANK[current] < RANK.Delivered;
  return RANK[next] > RANK[current];
}

type Chat = Exclude<ChatState, { status: 'none' }>;

function recordStatus(state: Chat, command: Extract<ChatCommand, { type: 'RecordChatStatus' }>): ChatEvent[] {
  const { messageId } = state;
  const at = command.at;
  // The platform's id arrives with its first report that carries one, whatever its status.
  const accepted: ChatEvent[] =
    command.platformMsgId && state.platformMsgId === null
      ? [{ type: 'ChatAccepted', data: { messageId, at, platformMsgId: command.platformMsgId } }]
      : [];
  if (!movesForward(state.status, command.status)) return accepted;
  switch (command.status) {
    case 'Accepted':
      return accepted;
    case 'Failed':
      return [
        ...accepted,
        { type: 'ChatFailed', data: { messageId, at, errors: command.errors ?? [] } },
        {
          type: 'ChatEnded',
          data: {
            messageId,
            at,
            status: 'Failed',
            reason: 'failed',
            disposition: null,
            summary: failureSummary(command.errors ?? []),
          },
        },
      ];
    default:
      return [...accepted, { type: STATUS_EVENT[command.status], data: { messageId, at } }];
  }
}

/**
 * The later of a chat's last activity and an event's time, as a UTC ISO string (platforms may report
 * times with an offset). A time that does not parse leaves the last activity as it was.
 */
export function latestActivity(current: string | null, at: string): string {
  // The usual case, without parsing dates: times the service recorded are canonical already.
  if (isCanonicalIsoTime(at) && (current === null || isCanonicalIsoTime(current)))
    return current !== null && current >= at ? current : at;
  const time = Date.parse(at);
  if (Number.isNaN(time)) return current ?? at;
  if (current !== null && Date.parse(current) >= time) return current;
  return new Date(time).toISOString();
}

const failureSummary = (errors: readonly DeliveryError[]) =>
  `The message was not delivered${errors[0] ? `: ${errors[0].title}` : ''}.`;

export function decide(command: ChatCommand, state: ChatState): ChatEvent[] {
  if (command.type === 'RequestChat') {
    if (state.status === 'none') {
      const { type: _type, ...data } = command;
      return [{ type: 'ChatRequested', data }];
    }
    // The same message asked for again (a repeated workflow step) sends nothing more.
    if (state.organizationId === command.organizationId) return [];
    throw conflict(`Chat message ${command.messageId} already exists`);
  }
  if (command.type === 'ReceiveChat') return receive(command, state);
  if (state.status === 'none') throw notFound(CHAT_NOT_FOUND);
  if (state.ended) return [];
  const { messageId } = state;
  switch (command.type) {
    case 'ScheduleChat': {
      if (state.dispatchedBy !== null || state.scheduledFor === command.scheduledFor) return [];
      const { scheduledFor, reason, at } = command;
      return [{ type: 'ChatScheduled', data: { messageId, at, campaignId: state.campaignId, scheduledFor, reason } }];
    }
    case 'DispatchChat':
      // A message is handed to the platform once: after a restart, a dispatched message is not sent again.
      if (state.dispatchedBy !== null) return [];
      if (command.blacklist.listed) return blacklistedFailure(state, command.at);
      return [
        {
          type: 'ChatDispatched',
          data: {
            messageId,
            at: command.at,
            provider: command.provider,
            ...(command.player !== undefined && { player: command.player }),
            blacklistRevision: command.blacklist.revision,
          },
        },
      ];
    case 'AdoptChat':
      // Taken only from the player the adopter saw: another replica adopted it first otherwise. An
      // undispatched message has nobody playing it (an ended one returned above).
      return state.dispatchedBy !== null && state.player === command.from && command.player !== command.from
        ? [{ type: 'ChatAdopted', data: { messageId, at: command.at, player: command.player, from: command.from } }]
        : [];
    case 'RecordChatStatus':
      return recordStatus(state, command);
    case 'RecordChatMessage':
      if (state.entries.has(command.entryId)) return [];
      return [
        {
          type: 'ChatMessageAdded',
          data: { messageId, at: command.at, entryId: command.entryId, role: command.role, content: command.content },
        },
      ];
    case 'CloseChat':
      // Activity after the time the closer asked to be quiet since: the chat is not inactive after all.
      if (command.quietSince !== undefined && Date.parse(state.lastActivityAt) > Date.parse(command.quietSince))
        return [];
      // A chat not sent yet is not inactive: it is on its way (or the reconciler's), not closed unsent.
      if (command.quietSince !== undefined && state.dispatchedAt === null && state.status === 'Accepted') return [];
      return [
        {
          type: 'ChatEnded',
          data: {
            messageId,
            at: command.at,
            status: state.status,
            reason: command.reason,
            disposition: command.disposition,
            summary: command.summary,
          },
        },
      ];
    default:
      return assertNever(command);
  }
}

/** The summary of an inbound chat refused because its sender is blacklisted. */
export const BLACKLISTED_INBOUND_CHAT_SUMMARY = 'The chat was refused: the sender is blacklisted.';

/** An inbound chat is recorded once: the same chat reported again (a platform's retry) records nothing more. */
function receive(command: Extract<ChatCommand, { type: 'ReceiveChat' }>, state: ChatState): ChatEvent[] {
  if (state.status !== 'none') {
    if (state.direction === 'inbound' && state.organizationId === command.organizationId) return [];
    throw conflict(`Chat message ${command.messageId} already exists`);
  }
  const { type: _type, blacklist, player, ...target } = command;
  const received: ChatEvent = {
    type: 'ChatReceived',
    data: {
      ...target,
      direction: 'inbound',
      ...(player !== undefined && { player }),
      blacklistRevision: blacklist.revision,
    },
  };
  if (!blacklist.listed) return [received];
  const { messageId, at } = command;
  const error = deliveryError('blacklisted', `${command.from} is blacklisted: the chat was refused.`);
  return [
    received,
    { type: 'ChatFailed', data: { messageId, at, errors: [error] } },
    {
      type: 'ChatEnded',
      data: {
        messageId,
        at,
        status: 'Failed',
        reason: 'blacklisted',
        disposition: null,
        summary: BLACKLISTED_INBOUND_CHAT_SUMMARY,
      },
    },
  ];
}

/** The message fails, unsent, because its number is blacklisted (as a Failed report would fail it). */
export function blacklistedFailure(state: Chat, at: string): ChatEvent[] {
  const error = deliveryError('blacklisted', `${state.to} was blacklisted before the message was sent.`);
  return recordStatus(state, { type: 'RecordChatStatus', status: 'Failed', at, errors: [error] });
}

export function evolve(state: ChatState, event: ChatEvent): ChatState {
  if (event.type === 'ChatRequested') {
    const { at, ...target } = event.data;
    return {
      status: 'Accepted',
      requestedAt: at,
      dispatchedBy: null,
      dispatchedAt: null,
      player: null,
      platformMsgId: null,
      entries: new Set(),
      ended: false,
      lastActivityAt: latestActivity(null, at),
      direction: 'outbound',
      from: null,
      ...target,
    };
  }
  if (event.type === 'ChatReceived') {
    // Delivered to us and in the platform's hands from the moment it is recorded, as a dispatched message.
    const { at, direction, provider, player, blacklistRevision: _revision, ...target } = event.data;
    return {
      status: 'Delivered',
      requestedAt: at,
      dispatchedBy: provider,
      dispatchedAt: at,
      player: player ?? null,
      platformMsgId: null,
      entries: new Set(),
      ended: false,
      lastActivityAt: latestActivity(null, at),
      direction,
      ...target,
    };
  }
  if (state.status === 'none') return state;
  // Moving the message to another replica is not activity.
  if (event.type === 'ChatAdopted') return { ...state, player: event.data.player };
  return { ...apply(state, event), lastActivityAt: latestActivity(state.lastActivityAt, event.data.at) };
}

function apply(
  state: Chat,
  event: Exclude<ChatEvent, { type: 'ChatRequested' | 'ChatReceived' | 'ChatAdopted' }>,
): Chat {
  switch (event.type) {
    case 'ChatScheduled':
      return { ...state, scheduledFor: event.data.scheduledFor };
    case 'ChatDispatched':
      return {
        ...state,
        dispatchedBy: event.data.provider,
        dispatchedAt: event.data.at,
        player: event.data.player ?? null,
      };
    case 'ChatAccepted':
      return { ...state, platformMsgId: event.data.platformMsgId };
    case 'ChatSent':
      return { ...state, status: 'Sent' };
    case 'ChatDelivered':
      return { ...state, status: 'Delivered' };
    case 'ChatRead':
      return { ...state, status: 'Read' };
    case 'ChatFailed':
      return { ...state, status: 'Failed' };
    case 'ChatMessageAdded':
      return { ...state, entries: new Set([...state.entries, event.data.entryId]) };
    case 'ChatEnded':
      return { ...state, ended: true };
    default:
      return assertNever(event);
  }
}

export const chatDecider: Decider<ChatCommand, ChatEvent, ChatState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
