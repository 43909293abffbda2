/**
 * Requests sent with an `Idempotency-Key`, kept in the event store (docs/api-decisions.md,
 * "Idempotency-Key"), so a retry is recognised whichever replica gets it, also after a restart. The
 * stream of an organization's key is folded and decided on (domain/idempotency/idempotent-request.ts);
 * a claim is appended with the revision that was read, so of several requests racing for a key exactly
 * one runs. The others wait for its answer, polling the stream, and answer it too.
 */
import { canonicalJson } from '../../domain/shared/canonical-json';
import { createHash } from 'node:crypto';
import {
  bindingAfter,
  decideOnKey,
  evolveIdempotency,
  idempotencyStreamId,
  initialIdempotencyState,
  requestOrigin,
  type ClaimData,
  type IdempotencyEvent,
  type IdempotencyState,
  type RequestFingerprint,
  type StoredAnswer,
} from '../../domain/idempotency/idempotent-request';
import { WrongExpectedRevisionError, type EventStore } from '../ports/event-store';
import { eventVersions } from '../upcasters';

export type { StoredAnswer } from '../../domain/idempotency/idempotent-request';

/** A request with a key: who sent it, and what it asked. */
export type KeyedRequest = {
  organizationId: string;
  actor: string;
  requestId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
};

/** A claim this request holds: it runs, then records its answer or gives the key back. */
export type Claim = {
  /** The same for every run of the request under this key (requestOrigin): what it makes carries it. */
  origin: string;
  complete(answer: StoredAnswer): Promise<void>;
  release(status: number): Promise<void>;
};

export type Admission =
  | { kind: 'run'; claim: Claim }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'mismatch'; what: 'body' | 'endpoint' }
  /** The request holding the key did not answer within the wait. */
  | { kind: 'busy' };

export type IdempotencyOptions = {
  now: () => Date;
  newId: () => string;
  /** This replica, and the replicas alive: a claim of a replica no longer alive is taken over. */
  replica: { name: string; alive: () => Promise<ReadonlySet<string>> };
  /** How long a key stays bound to its first request (24 h). */
  ttlMs?: number;
  /** How long a retry waits for the first request's answer (60 s). */
  waitMs?: number;
  /** A claim this old without an answer is taken over even when its replica seems alive (5 min). */
  staleAfterMs?: number;
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Characters of an answer's body per event: at most 192 KiB of UTF-8 even when every one takes three bytes. */
const PART_CHARS = 64 * 1024;
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 250;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class IdempotencyKeys {
  private readonly ttlMs: number;
  private readonly waitMs: number;
  private readonly staleAfterMs: number;

  constructor(
    private readonly events: EventStore,
    private readonly options: IdempotencyOptions,
  ) {
    this.ttlMs = options.ttlMs ?? DAY_MS;
    this.waitMs = options.waitMs ?? 60_000;
    this.staleAfterMs = options.staleAfterMs ?? 5 * 60_000;
  }

  /** Runs the request (holding the key), or gives the answer its first sending got, or tells why neither. */
  async admit(request: KeyedRequest): Promise<Admission> {
    const streamId = idempotencyStreamId(request.organizationId, sha256(request.key));
    const fingerprint: RequestFingerprint = {
      method: request.method,
      path: request.path,
      bodyHash: sha256(request.body === undefined ? '' : canonicalJson(request.body)),
    };
    const deadline = this.options.now().getTime() + this.waitMs;
    let pause = FIRST_PAUSE_MS;
    for (;;) {
      const recorded = await this.events.readStream(streamId);
      const state = recorded.reduce(
        (s, e) => evolveIdempotency(s, e as unknown as IdempotencyEvent),
        initialIdempotencyState(),
      );
      const revision = recorded.length === 0 ? ('no_stream' as const) : recorded[recorded.length - 1]!.revision;
      const now = this.options.now();
      const decision = decideOnKey(state, fingerprint, now, this.staleAfterMs);
      if (decision.kind === 'replay' || decision.kind === 'mismatch') return decision;
      if (decision.kind === 'claim' || (await this.abandoned(decision.claim))) {
        const claim = await this.claim(streamId, state, request, fingerprint, revision, now);
        if (claim) return { kind: 'run', claim };
        continue; // another request claimed it first: see what it is
      }
      if (now.getTime() >= deadline) return { kind: 'busy' };
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }

  /** A claim whose replica is no longer alive (its process died), never this replica's own. */
  private async abandoned(claim: ClaimData): Promise<boolean> {
    if (claim.replica === this.options.replica.name) return false;
    return !(await this.options.replica.alive()).has(claim.replica);
  }

  private async claim(
    streamId: string,
    state: IdempotencyState,
    request: KeyedRequest,
    fingerprint: RequestFingerprint,
    revision: number | 'no_stream',
    now: Date,
  ): Promise<Claim | null> {
    const data: ClaimData = {
      ...fingerprint,
      claimedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlMs).toISOString(),
      replica: this.options.replica.name,
    };
    let expected: number;
    try {
      expected = (await this.append(streamId, request, revision, [{ type: 'IdempotencyKeyClaimed', data }]))
        .nextExpectedRevision;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return null;
      throw error;
    }
    return {
      origin: requestOrigin(streamId, bindingAfter(state.binding, data)),
      complete: async (answer) => {
        const completedAt = this.options.now().toISOString();
        const { status, headers, body } = answer;
        if (body.length <= PART_CHARS) {
          await this.append(streamId, request, expected, [
            { type: 'IdempotentRequestCompleted', data: { status, headers, body, completedAt } },
          ]);
          return;
        }
        // One part per append: an append stays far below what every event store takes.
        const parts: string[] = [];
        for (let i = 0; i < body.length; i += PART_CHARS) parts.push(body.slice(i, i + PART_CHARS));
        for (const text of parts)
          expected = (
            await this.append(streamId, request, expected, [{ type: 'IdempotentResponsePart', data: { text } }])
          ).nextExpectedRevision;
        await this.append(streamId, request, expected, [
          { type: 'IdempotentRequestCompleted', data: { status, headers, parts: parts.length, completedAt } },
        ]);
      },
      release: async (status) => {
        await this.append(streamId, request, expected, [
          { type: 'IdempotencyKeyReleased', data: { status, releasedAt: this.options.now().toISOString() } },
        ]);
      },
    };
  }

  private append(
    streamId: string,
    request: KeyedRequest,
    expectedRevision: number | 'no_stream',
    events: readonly IdempotencyEvent[],
  ) {
    const occurredAt = this.options.now().toISOString();
    return this.events.appendToStream(
      streamId,
      events.map((event) => ({
        id: this.options.newId(),
        type: event.type,
        data: event.data,
        metadata: {
          organizationId: request.organizationId,
          actor: request.actor,
          requestId: request.requestId,
          correlationId: request.requestId,
          causationId: null,
          occurredAt,
          schemaVersion: eventVersions.versionOf(event.type),
        },
      })),
      { expectedRevision },
    );
  }
}
