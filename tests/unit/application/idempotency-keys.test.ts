/**
 * The keys of idempotent requests on a real event store: one request of several claims a key, the others
 * get its answer (however long), a failure worth retrying frees the key, and a claim nobody will finish
 * (its replica died, or it is older than the stale bound) or an expired key is claimed anew.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../domain/shared/canonical-json';
import {
  IdempotencyKeys,
  type Admission,
  type IdempotencyOptions,
  type KeyedRequest,
} from '../../../application/idempotency/idempotency-keys';
import { timeOrderedId } from '../../../application/time-ordered-id';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';

const request: KeyedRequest = {
  organizationId: 'o1',
  actor: 'token:t1',
  requestId: 'r1',
  key: 'k1',
  method: 'POST',
  path: '/campaigns/create',
  body: { name: 'April', campaignType: 'emi' },
};
const answer = { status: 201, headers: {}, body: '{"success":true}' };

/** Keys on `store` for replica `name`; the clock runs `shift()` ahead of real time when asked. */
function keysOn(store: MemoryEventStore, name: string, alive: string[], options: Partial<IdempotencyOptions> = {}) {
  let offsetMs = 0;
  const keys = new IdempotencyKeys(store, {
    now: () => new Date(Date.now() + offsetMs),
    newId: () => timeOrderedId(),
    replica: { name, alive: async () => new Set(alive) },
    ...options,
  });
  return { keys, shift: (ms: number) => void (offsetMs += ms) };
}

const run = (admission: Admission) => {
  if (admission.kind !== 'run') throw new Error(`expected to run, got ${admission.kind}`);
  return admission.claim;
};

describe('idempotency keys', () => {
  it('hashes bodies by their content, not the order of their keys', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe(canonicalJson({ a: [{ c: null, d: 2 }], b: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('lets one of two requests racing for a key run, and gives the other its answer', async () => {
    const store = new MemoryEventStore();
    const first = keysOn(store, 'a', ['a', 'b']).keys.admit(request);
    const second = keysOn(store, 'b', ['a', 'b']).keys.admit(request);
    // The one that claimed the key resolves first; the other waits for its answer.
    await run(await Promise.race([first, second])).complete(answer);
    const admissions = await Promise.all([first, second]);
    expect(admissions.filter((x) => x.kind === 'run')).toHaveLength(1);
    expect(admissions.filter((x) => x.kind !== 'run')).toEqual([{ kind: 'replay', answer }]);
  });

  it('makes a request finding the key claimed wait for the answer, and replays it', async () => {
    const store = new MemoryEventStore();
    const claim = run(await keysOn(store, 'a', ['a', 'b']).keys.admit(request));
    const waiting = keysOn(store, 'b', ['a', 'b']).keys.admit(request);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await claim.complete(answer);
    expect(await waiting).toEqual({ kind: 'replay', answer });
  });

  it('keeps a long answer in parts and replays it whole', async () => {
    const store = new MemoryEventStore();
    const keys = keysOn(store, 'a', ['a']).keys;
    const long = { status: 207, headers: { location: '/x' }, body: JSON.stringify({ text: 'é'.repeat(200_000) }) };
    await run(await keys.admit(request)).complete(long);
    expect(await keys.admit(request)).toEqual({ kind: 'replay', answer: long });
    const streamId = `idempotency-o1-${createHash('sha256').update('k1').digest('hex')}`;
    expect((await store.readStream(streamId)).map((e) => e.type)).toEqual([
      'IdempotencyKeyClaimed',
      'IdempotentResponsePart',
      'IdempotentResponsePart',
      'IdempotentResponsePart',
      'IdempotentResponsePart',
      'IdempotentRequestCompleted',
    ]);
  });

  it('tells another body or another endpoint from a retry', async () => {
    const store = new MemoryEventStore();
    const keys = keysOn(store, 'a', ['a']).keys;
    await run(await keys.admit(request)).complete(answer);
    expect(await keys.admit({ ...request, body: { campaignType: 'emi', name: 'April' } })).toEqual({
      kind: 'replay',
      answer,
    });
    expect(await keys.admit({ ...request, body: { name: 'May', campaignType: 'emi' } })).toEqual({
      kind: 'mismatch',
      what: 'body',
    });
    expect(await keys.admit({ ...request, path: '/agents' })).toEqual({ kind: 'mismatch', what: 'endpoint' });
    // Keys belong to their organization.
    expect((await keys.admit({ ...request, organizationId: 'o2' })).kind).toBe('run');
  });

  it('frees a released key for the retry to run, which keeps the origin of the first run', async () => {
    const store = new MemoryEventStore();
    const keys = keysOn(store, 'a', ['a']).keys;
    const first = run(await keys.admit(request));
    await first.release(503);
    const again = run(await keys.admit(request));
    expect(again.origin).toBe(first.origin);
    await again.complete(answer);
    expect(await keys.admit(request)).toEqual({ kind: 'replay', answer });
  });

  it('answers busy when the answer does not come within the wait', async () => {
    const store = new MemoryEventStore();
    run(await keysOn(store, 'a', ['a', 'b']).keys.admit(request));
    const started = Date.now();
    expect(await keysOn(store, 'b', ['a', 'b'], { waitMs: 200 }).keys.admit(request)).toEqual({ kind: 'busy' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('takes over the claim of a replica no longer alive, and one older than the stale bound', async () => {
    const store = new MemoryEventStore();
    const abandoned = run(await keysOn(store, 'dead', ['dead']).keys.admit(request));
    const survivor = keysOn(store, 'b', ['b'], { waitMs: 100 }).keys;
    const taken = run(await survivor.admit(request));
    // The run taken over is the same request: what the dead run made is found by the new one.
    expect(taken.origin).toBe(abandoned.origin);
    await taken.complete(answer);
    expect(await survivor.admit(request)).toEqual({ kind: 'replay', answer });

    const other = { ...request, key: 'k2' };
    run(await keysOn(store, 'a', ['a', 'b']).keys.admit(other));
    const late = keysOn(store, 'b', ['a', 'b'], { waitMs: 100, staleAfterMs: 60_000 });
    expect((await late.keys.admit(other)).kind).toBe('busy');
    late.shift(60_000);
    expect((await late.keys.admit(other)).kind).toBe('run');
  });

  it('frees a key after its time to live, for any request, which is another origin', async () => {
    const store = new MemoryEventStore();
    const { keys, shift } = keysOn(store, 'a', ['a'], { ttlMs: 1000 });
    const first = run(await keys.admit(request));
    await first.complete(answer);
    shift(1000);
    const next = run(await keys.admit({ ...request, body: { name: 'May', campaignType: 'emi' } }));
    expect(next.origin).not.toBe(first.origin);
    expect(run(await keys.admit({ ...request, key: 'k9' })).origin).not.toBe(first.origin);
    await next.complete({ ...answer, body: '{"success":true,"again":true}' });
    expect(await keys.admit({ ...request, body: { name: 'May', campaignType: 'emi' } })).toEqual({
      kind: 'replay',
      answer: { ...answer, body: '{"success":true,"again":true}' },
    });
  });
});
