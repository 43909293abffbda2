/**
 * An organization: its type decides the shape of its customers; it holds the speech credit balance
 * (in characters) and the concurrency limit. Tokens issued for it are recorded (never the token itself).
 *
 * Speech requests are admitted here, so the limits hold across every replica: a request is started
 * (counted against the concurrency limit, its characters reserved against the balance) and later
 * finished (charged for what was actually spoken). A started request that is never finished (its
 * process died) stops counting once its lease ends. It is still remembered for a day after that
 * (`LATE_FINISH_MS`), so a finish that comes after the lease (a store that answered late) is still
 * charged, and only once.
 *
 * A replica may also reserve capacity in advance: a block of slots and characters
 * (`ReserveSpeechCapacity`), which counts against the limits as a whole until it is released or its
 * lease ends. The replica admits requests into the block in memory, with no append before their audio,
 * and records each one afterwards (`StartSpeechRequest` naming the block, then its finish, charged as
 * any other). A replica that dies holding a block is charged only the finishes recorded in it, as a
 * request whose process died is charged nothing: the block stops counting when its lease ends.
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, DomainError, invalid, notFound } from '../shared/errors';
import { callingHoursProblems, DEFAULT_CALLING_HOURS, type CallingHours } from '../campaigns/schedule';

export const organizationStreamId = (organizationId: string) => `organization-${organizationId}`;

export type OrganizationType = 'collection' | 'lead_generation';
export const ORGANIZATION_TYPES: readonly OrganizationType[] = ['collection', 'lead_generation'];

/** A request holding its own slot, or (with `blockId`) one admitted into a block, which holds the slot for it. */
export type ActiveSpeech = { characters: number; leaseUntil: string; blockId?: string };

/** A block of capacity reserved by one replica: `charged` is what its finished requests have paid. */
export type CapacityBlock = { slots: number; characters: number; charged: number; leaseUntil: string };

export type OrganizationState =
  | { status: 'unknown' }
  | {
      status: 'registered';
      id: string;
      name: string;
      type: OrganizationType;
      credits: number;
      concurrencyLimit: number;
      activeSpeech: Record<string, ActiveSpeech>;
      /** Absent in states folded before blocks existed (snapshots): none. */
      capacityBlocks?: Record<string, CapacityBlock>;
      /** Set through the admin API; absent: the defaults of its type (domain/campaigns/schedule.ts). */
      callingHours?: CallingHours;
    };

export type SpeechDetails = {
  voiceId: string;
  language: string;
  sampleRate: number;
  speed: number;
  channel: 'rest' | 'websocket';
};

/** A speech request as it starts (the command's fields, and the event's data). */
export type SpeechStart = {
  speechId: string;
  requestId: string;
  characters: number;
  leaseUntil: string;
  at: string;
  /** Admitted in memory into this block of the replica's (the limits were its to spend): recorded, not decided. */
  blockId?: string;
} & SpeechDetails;

export type OrganizationCommand =
  | {
      type: 'RegisterOrganization';
      organizationId: string;
      name: string;
      organizationType: OrganizationType;
      credits: number;
      concurrencyLimit: number;
      at: string;
    }
  | { type: 'AdjustCredits'; amount: number; at: string }
  | { type: 'SetCallingHours'; callingHours: CallingHours; at: string }
  | {
      type: 'RecordTokenIssued';
      tokenId: string;
      subject: string;
      scopes: string[] | null;
      expiresAt: string;
      at: string;
    }
  | ({ type: 'StartSpeechRequest' } & SpeechStart)
  | {
      type: 'ReserveSpeechCapacity';
      blockId: string;
      /** Characters the block should hold per slot (the longest request). */
      charactersPerSlot: number;
      leaseUntil: string;
      at: string;
    }
  | { type: 'ReleaseSpeechCapacity'; blockId: string; at: string }
  | {
      type: 'FinishSpeechRequest';
      speechId: string;
      requestId: string;
      charactersSpoken: number;
      audioDurationMs: number;
      outcome: SpeechOutcome;
      at: string;
    };

/** `timed_out`: cut at its deadline, below its lease (application/speech/speech-service.ts). */
export type SpeechOutcome = 'completed' | 'cancelled' | 'disconnected' | 'failed' | 'timed_out';

export type OrganizationEvent =
  | {
      type: 'OrganizationRegistered';
      data: {
        organizationId: string;
        name: string;
        organizationType: OrganizationType;
        credits: number;
        concurrencyLimit: number;
        at: string;
      };
    }
  | { type: 'CreditsAdjusted'; data: { amount: number; balance: number; at: string } }
  | { type: 'CallingHoursSet'; data: { callingHours: CallingHours; at: string } }
  | {
      type: 'AccessTokenIssued';
      data: { tokenId: string; subject: string; scopes: string[] | null; expiresAt: string; at: string };
    }
  | { type: 'SpeechRequestStarted'; data: SpeechStart }
  | {
      type: 'SpeechCapacityReserved';
      data: { blockId: string; slots: number; characters: number; leaseUntil: string; at: string };
    }
  | { type: 'SpeechCapacityReleased'; data: { blockId: string; at: string } }
  | {
      type: 'SpeechRequestFinished';
      data: {
        speechId: string;
        requestId: string;
        charactersSpoken: number;
        charged: number;
        balance: number;
        audioDurationMs: number;
        outcome: SpeechOutcome;
        at: string;
      };
    };

export const CONCURRENCY_LIMIT_EXCEEDED = 'concurrency_limit_exceeded';
export const INSUFFICIENT_CREDITS = 'insufficient_credits';

type Registered = Extract<OrganizationState, { status: 'registered' }>;

/**
 * Requests still holding a slot of their own at `at`: started outside a block, not finished, lease not
 * over. Requests are keyed by a server-made `speechId`: the client's `request_id` is only unique on its
 * own connection.
 */
export function activeSpeechAt(state: Registered, at: string): ActiveSpeech[] {
  return Object.values(state.activeSpeech).filter((r) => r.blockId === undefined && r.leaseUntil > at);
}

/** Blocks still counting at `at`: reserved, not released, lease not over. */
export const liveBlocksAt = (state: Registered, at: string): CapacityBlock[] =>
  Object.values(state.capacityBlocks ?? {}).filter((b) => b.leaseUntil > at);

/** Slots and characters held at `at`: by requests holding their own, and by blocks (less what they have charged). */
export function heldAt(state: Registered, at: string): { slots: number; characters: number } {
  const active = activeSpeechAt(state, at);
  const blocks = liveBlocksAt(state, at);
  return {
    slots: active.length + blocks.reduce((sum, b) => sum + b.slots, 0),
    characters:
      active.reduce((sum, r) => sum + r.characters, 0) +
      blocks.reduce((sum, b) => sum + Math.max(0, b.characters - b.charged), 0),
  };
}

const tooMany = (limit: number) =>
  new DomainError('conflict', `Too many simultaneous requests (limit ${limit})`, { code: CONCURRENCY_LIMIT_EXCEEDED });
const tooFewCredits = (requested: number, available: number) =>
  new DomainError(
    'invalid',
    `Insufficient credits: ${requested} characters requested, ${Math.max(0, available)} available`,
    { code: INSUFFICIENT_CREDITS },
  );

/**
 * A block takes at most this share of the slots (rounded down) and of the credits still free: other
 * replicas need some. An organization allowed one request at a time gets no block, so its one slot is
 * never held by a replica with nothing to say.
 */
export const BLOCK_SHARE = 0.5;

export const ORGANIZATION_NOT_FOUND = 'Organization not found';

export function decide(command: OrganizationCommand, state: OrganizationState): OrganizationEvent[] {
  switch (command.type) {
    case 'RegisterOrganization': {
      if (state.status !== 'unknown') throw conflict('Organization already exists');
      const { organizationId, name, organizationType, credits, concurrencyLimit, at } = command;
      return [
        {
          type: 'OrganizationRegistered',
          data: { organizationId, name, organizationType, credits, concurrencyLimit, at },
        },
      ];
    }
    case 'AdjustCredits': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const balance = state.credits + command.amount;
      if (balance < 0) throw invalid(`Credits cannot go below zero (balance ${state.credits})`);
      return [{ type: 'CreditsAdjusted', data: { amount: command.amount, balance, at: command.at } }];
    }
    case 'SetCallingHours': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const problems = callingHoursProblems(command.callingHours);
      if (problems.length > 0) throw invalid('Validation failed', { errors: problems });
      const { start, end } = command.callingHours;
      return [{ type: 'CallingHoursSet', data: { callingHours: { start, end }, at: command.at } }];
    }
    case 'RecordTokenIssued': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const { tokenId, subject, scopes, expiresAt, at } = command;
      return [{ type: 'AccessTokenIssued', data: { tokenId, subject, scopes, expiresAt, at } }];
    }
    case 'StartSpeechRequest': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const { type: _type, ...data } = command;
      if (state.activeSpeech[command.speechId])
        throw conflict(`Speech request ${command.speechId} is already being processed`);
      // Admitted into a block: the replica spent the block's capacity in memory, the audio is out.
      if (command.blockId !== undefined) return [{ type: 'SpeechRequestStarted', data }];
      const held = heldAt(state, command.at);
      if (held.slots >= state.concurrencyLimit) throw tooMany(state.concurrencyLimit);
      if (state.credits - held.characters < command.characters)
        throw tooFewCredits(command.characters, state.credits - held.characters);
      return [{ type: 'SpeechRequestStarted', data }];
    }
    case 'ReserveSpeechCapacity': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const { blockId, charactersPerSlot, leaseUntil, at } = command;
      if (state.capacityBlocks?.[blockId]) return [];
      const held = heldAt(state, at);
      const freeSlots = state.concurrencyLimit - held.slots;
      const slots = Math.min(freeSlots, Math.floor(state.concurrencyLimit * BLOCK_SHARE));
      if (slots < 1) throw tooMany(state.concurrencyLimit);
      const freeCredits = state.credits - held.characters;
      const characters = Math.min(slots * charactersPerSlot, Math.floor(freeCredits * BLOCK_SHARE));
      // A block that cannot hold the longest request is no use: such requests are admitted one by one.
      if (characters < charactersPerSlot) throw tooFewCredits(charactersPerSlot, freeCredits);
      return [{ type: 'SpeechCapacityReserved', data: { blockId, slots, characters, leaseUntil, at } }];
    }
    case 'ReleaseSpeechCapacity': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      // Idempotent: a block released before (or never reserved) changes nothing.
      if (!state.capacityBlocks?.[command.blockId]) return [];
      return [{ type: 'SpeechCapacityReleased', data: { blockId: command.blockId, at: command.at } }];
    }
    case 'FinishSpeechRequest': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const started = state.activeSpeech[command.speechId];
      // Finishing is idempotent: a request finished before (or never started) changes nothing.
      if (!started) return [];
      const charged = Math.min(command.charactersSpoken, started.characters, state.credits);
      const { speechId, requestId, charactersSpoken, audioDurationMs, outcome, at } = command;
      return [
        {
          type: 'SpeechRequestFinished',
          data: {
            speechId,
            requestId,
            charactersSpoken,
            charged,
            balance: state.credits - charged,
            audioDurationMs,
            outcome,
            at,
          },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationRegistered': {
      const { organizationId: id, name, organizationType: type, credits, concurrencyLimit } = event.data;
      return { status: 'registered', id, name, type, credits, concurrencyLimit, activeSpeech: {} };
    }
    case 'CreditsAdjusted':
      return state.status === 'registered' ? { ...state, credits: event.data.balance } : state;
    case 'CallingHoursSet':
      return state.status === 'registered' ? { ...state, callingHours: event.data.callingHours } : state;
    case 'AccessTokenIssued':
      return state;
    case 'SpeechRequestStarted':
      if (state.status !== 'registered') return state;
      return {
        ...state,
        activeSpeech: {
          ...state.activeSpeech,
          [event.data.speechId]: {
            characters: event.data.characters,
            leaseUntil: event.data.leaseUntil,
            ...(event.data.blockId !== undefined && { blockId: event.data.blockId }),
          },
        },
      };
    case 'SpeechRequestFinished': {
      if (state.status !== 'registered') return state;
      const { [event.data.speechId]: done, ...activeSpeech } = state.activeSpeech;
      const block = done?.blockId === undefined ? undefined : state.capacityBlocks?.[done.blockId];
      return {
        ...state,
        credits: event.data.balance,
        activeSpeech: pruneExpired(activeSpeech, event.data.at),
        // What a block's request paid is no longer held by the block: it left the balance.
        ...(block && {
          capacityBlocks: {
            ...state.capacityBlocks,
            [done!.blockId!]: { ...block, charged: block.charged + event.data.charged },
          },
        }),
      };
    }
    case 'SpeechCapacityReserved': {
      if (state.status !== 'registered') return state;
      const { blockId, slots, characters, leaseUntil, at } = event.data;
      const blocks = Object.entries(state.capacityBlocks ?? {}).filter(([, b]) => b.leaseUntil > at);
      return {
        ...state,
        capacityBlocks: { ...Object.fromEntries(blocks), [blockId]: { slots, characters, charged: 0, leaseUntil } },
      };
    }
    case 'SpeechCapacityReleased': {
      if (state.status !== 'registered') return state;
      const { [event.data.blockId]: _released, ...capacityBlocks } = state.capacityBlocks ?? {};
      return { ...state, capacityBlocks };
    }
    default:
      return assertNever(event);
  }
}

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ status: 'unknown' }),
  evolve,
  decide,
  // Every speech request appends two events: a busy organization's stream never stops growing.
  snapshot: { every: 100, version: 1 },
};

/** The hours the organization's customers may be called in, their local time. */
export const callingHoursOf = (
  state: Registered,
  defaults: Record<OrganizationType, CallingHours> = DEFAULT_CALLING_HOURS,
): CallingHours => state.callingHours ?? defaults[state.type];

/** How long after its lease a started request is remembered, so that its late finish is still charged. */
export const LATE_FINISH_MS = 24 * 60 * 60_000;

/**
 * Forgets requests whose lease ended more than `LATE_FINISH_MS` before `at`, so abandoned requests do
 * not pile up in the state. One whose lease ended more recently no longer counts (`activeSpeechAt`)
 * but is kept: its finish may still come, and is charged.
 */
function pruneExpired(active: Record<string, ActiveSpeech>, at: string): Record<string, ActiveSpeech> {
  const horizon = Date.parse(at) - LATE_FINISH_MS;
  return Object.fromEntries(Object.entries(active).filter(([, r]) => Date.parse(r.leaseUntil) > horizon));
}
