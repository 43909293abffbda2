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
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, DomainError, invalid, notFound } from '../shared/errors';

export const organizationStreamId = (organizationId: string) => `organization-${organizationId}`;

export type OrganizationType = 'collection' | 'lead_generation';
export const ORGANIZATION_TYPES: readonly OrganizationType[] = ['collection', 'lead_generation'];

export type ActiveSpeech = { characters: number; leaseUntil: string };

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
    };

export type SpeechDetails = {
  voiceId: string;
  language: string;
  sampleRate: number;
  speed: number;
  channel: 'rest' | 'websocket';
};

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
  | {
      type: 'RecordTokenIssued';
      tokenId: string;
      subject: string;
      scopes: string[] | null;
      expiresAt: string;
      at: string;
    }
  | ({
      type: 'StartSpeechRequest';
      speechId: string;
      requestId: string;
      characters: number;
      leaseUntil: string;
      at: string;
    } & SpeechDetails)
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
  | {
      type: 'AccessTokenIssued';
      data: { tokenId: string; subject: string; scopes: string[] | null; expiresAt: string; at: string };
    }
  | {
      type: 'SpeechRequestStarted';
      data: { speechId: string; requestId: string; characters: number; leaseUntil: string; at: string } & SpeechDetails;
    }
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

/**
 * Requests still holding a slot at `at`: started, not finished, lease not over. Requests are keyed by
 * a server-made `speechId`: the client's `request_id` is only unique on its own connection.
 */
export function activeSpeechAt(
  state: Extract<OrganizationState, { status: 'registered' }>,
  at: string,
): ActiveSpeech[] {
  return Object.values(state.activeSpeech).filter((r) => r.leaseUntil > at);
}

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
      const active = activeSpeechAt(state, command.at);
      if (active.length >= state.concurrencyLimit)
        throw new DomainError('conflict', `Too many simultaneous requests (limit ${state.concurrencyLimit})`, {
          code: CONCURRENCY_LIMIT_EXCEEDED,
        });
      const reserved = active.reduce((sum, r) => sum + r.characters, 0);
      if (state.credits - reserved < command.characters) {
        throw new DomainError(
          'invalid',
          `Insufficient credits: ${command.characters} characters requested, ${Math.max(0, state.credits - reserved)} available`,
          { code: INSUFFICIENT_CREDITS },
        );
      }
      return [{ type: 'SpeechRequestStarted', data }];
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
    case 'AccessTokenIssued':
      return state;
    case 'SpeechRequestStarted':
      if (state.status !== 'registered') return state;
      return {
        ...state,
        activeSpeech: {
          ...state.activeSpeech,
          [event.data.speechId]: { characters: event.data.characters, leaseUntil: event.data.leaseUntil },
        },
      };
    case 'SpeechRequestFinished': {
      if (state.status !== 'registered') return state;
      const { [event.data.speechId]: _done, ...activeSpeech } = state.activeSpeech;
      return { ...state, credits: event.data.balance, activeSpeech: pruneExpired(activeSpeech, event.data.at) };
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
