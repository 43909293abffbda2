/**
 * A request sent with an `Idempotency-Key` (docs/api-decisions.md, "Idempotency-Key"): one stream per
 * organization and key. The first request claims the key (appended only if the stream does not exist,
 * or at the revision its sender read, so of two requests exactly one claims it), then records the
 * answer it gave, which every retry gets back, or releases the key when it failed in a way worth trying
 * again. Pure: the stream id, the events, the fold and what a request finding the stream does; reading,
 * waiting and appending are the application's (application/idempotency/idempotency-keys.ts).
 */
import type { DomainEvent } from '../shared/decider';

/** `keyHash`: the SHA-256 of the key, in hex, so a stream id stays short and shows no client text. */
export const idempotencyStreamId = (organizationId: string, keyHash: string): string =>
  `idempotency-${organizationId}-${keyHash}`;

/** What identifies a request beyond its key: the operation, the path it named and its body's hash. */
export type RequestFingerprint = { method: string; path: string; bodyHash: string };

export type ClaimData = RequestFingerprint & {
  claimedAt: string;
  /** After this the key may be used again, for any request. */
  expiresAt: string;
  /** The replica running the request: another may take the claim over once it is not alive. */
  replica: string;
};

/** The answer as it was sent: the status, the headers worth repeating, the JSON text of the body. */
export type StoredAnswer = { status: number; headers: Record<string, string>; body: string };

export type IdempotencyEvent =
  | DomainEvent<'IdempotencyKeyClaimed', ClaimData>
  /** A part of a long answer's body, before the `IdempotentRequestCompleted` that counts them (events stay small). */
  | DomainEvent<'IdempotentResponsePart', { text: string }>
  | DomainEvent<
      'IdempotentRequestCompleted',
      { status: number; headers: Record<string, string>; body?: string; parts?: number; completedAt: string }
    >
  /** The request failed in a way a retry may not meet (a 5xx it did not decide on itself): the key is free again. */
  | DomainEvent<'IdempotencyKeyReleased', { status: number; releasedAt: string }>;

/**
 * The key's binding to one request: from the claim that first ran it until the newest claim of it
 * expires. A request cut short (its process died, or it failed and gave the key back) and run again
 * by a retry keeps the binding, so what the first run did is recognised by the second as its own
 * (`since` names it: see `requestOrigin`). A claim made after the binding expired starts a new one.
 */
export type KeyBinding = { since: string; until: string };

export type IdempotencyState = { binding: KeyBinding | null } & (
  | { kind: 'free' }
  | { kind: 'claimed'; claim: ClaimData; parts: string[] }
  | { kind: 'completed'; claim: ClaimData; answer: StoredAnswer }
);

export const initialIdempotencyState = (): IdempotencyState => ({ kind: 'free', binding: null });

/**
 * What names a request across the runs of its key's binding, for the things it makes to carry
 * (derived ids, the origin of a customer added): the same in every run, another after the key expires.
 */
export const requestOrigin = (streamId: string, binding: KeyBinding): string => `${streamId}@${binding.since}`;

export function bindingAfter(binding: KeyBinding | null, claim: ClaimData): KeyBinding {
  if (binding && Date.parse(claim.claimedAt) < Date.parse(binding.until))
    return { since: binding.since, until: claim.expiresAt };
  return { since: claim.claimedAt, until: claim.expiresAt };
}

export function evolveIdempotency(state: IdempotencyState, event: IdempotencyEvent): IdempotencyState {
  switch (event.type) {
    case 'IdempotencyKeyClaimed':
      return { kind: 'claimed', claim: event.data, parts: [], binding: bindingAfter(state.binding, event.data) };
    case 'IdempotentResponsePart':
      return state.kind === 'claimed' ? { ...state, parts: [...state.parts, event.data.text] } : state;
    case 'IdempotentRequestCompleted': {
      if (state.kind !== 'claimed') return state;
      const { status, headers, body, parts } = event.data;
      const text = body ?? state.parts.slice(state.parts.length - (parts ?? 0)).join('');
      return { kind: 'completed', claim: state.claim, answer: { status, headers, body: text }, binding: state.binding };
    }
    case 'IdempotencyKeyReleased':
      return { kind: 'free', binding: state.binding };
  }
}

/** What a request carrying a key does, given what the key's stream holds. */
export type KeyDecision =
  /** Run the request, claiming the key first (a new claim; over an expired or abandoned one too). */
  | { kind: 'claim' }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'mismatch'; what: 'body' | 'endpoint' }
  /** Another request with this key runs: wait for its answer. */
  | { kind: 'wait'; claim: ClaimData };

/**
 * `staleAfterMs`: a claim this old without an answer is taken to be abandoned (the process running it
 * died), and the request claims the key over it.
 */
export function decideOnKey(
  state: IdempotencyState,
  request: RequestFingerprint,
  now: Date,
  staleAfterMs: number,
): KeyDecision {
  if (state.kind === 'free') return { kind: 'claim' };
  const { claim } = state;
  if (now.getTime() >= Date.parse(claim.expiresAt)) return { kind: 'claim' };
  if (claim.method !== request.method || claim.path !== request.path) return { kind: 'mismatch', what: 'endpoint' };
  if (claim.bodyHash !== request.bodyHash) return { kind: 'mismatch', what: 'body' };
  if (state.kind === 'completed') return { kind: 'replay', answer: state.answer };
  if (now.getTime() - Date.parse(claim.claimedAt) >= staleAfterMs) return { kind: 'claim' };
  return { kind: 'wait', claim };
}
