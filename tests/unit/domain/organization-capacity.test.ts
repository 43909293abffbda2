/**
 * Speech capacity reserved in advance: a block of slots and characters counts against the limits as a
 * whole until it is released or its lease ends; requests admitted into it are recorded, not decided;
 * what they are charged leaves the block; a block whose replica died stops counting at its lease end
 * and is charged only the finishes recorded in it.
 */
import { organizationDecider, type OrganizationEvent } from '../../../domain/organizations/organization';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const later = '2026-03-01T10:30:00.000Z';
const lease = '2026-03-01T10:11:00.000Z';
const spec = specFor(organizationDecider);
const details = { voiceId: 'v', language: 'en', sampleRate: 24000, speed: 1, channel: 'websocket' as const };

const registered = (credits: number, concurrencyLimit: number): OrganizationEvent => ({
  type: 'OrganizationRegistered',
  data: { organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits, concurrencyLimit, at },
});
const reserve = (blockId: string, charactersPerSlot: number, when = at) => ({
  type: 'ReserveSpeechCapacity' as const,
  blockId,
  charactersPerSlot,
  leaseUntil: lease,
  at: when,
});
const reserved = (blockId: string, slots: number, characters: number): OrganizationEvent => ({
  type: 'SpeechCapacityReserved',
  data: { blockId, slots, characters, leaseUntil: lease, at },
});
const start = (speechId: string, characters: number, blockId?: string, when = at) => ({
  type: 'StartSpeechRequest' as const,
  speechId,
  requestId: 'r',
  characters,
  leaseUntil: '2026-03-01T10:10:00.000Z',
  at: when,
  ...details,
  ...(blockId !== undefined && { blockId }),
});
const started = (speechId: string, characters: number, blockId?: string): OrganizationEvent => {
  const { type: _type, ...data } = start(speechId, characters, blockId);
  return { type: 'SpeechRequestStarted', data };
};
const finish = (speechId: string, charactersSpoken: number, when = at) => ({
  type: 'FinishSpeechRequest' as const,
  speechId,
  requestId: 'r',
  charactersSpoken,
  audioDurationMs: 1000,
  outcome: 'completed' as const,
  at: when,
});
const finished = (speechId: string, charged: number, balance: number, when = at): OrganizationEvent => ({
  type: 'SpeechRequestFinished',
  data: {
    speechId,
    requestId: 'r',
    charactersSpoken: charged,
    charged,
    balance,
    audioDurationMs: 1000,
    outcome: 'completed',
    at: when,
  },
});

describe('organization: speech capacity reserved in advance', () => {
  it('reserves half the free slots and at most half the free credits, enough for the longest request per slot', () => {
    spec
      .given([registered(10_000, 4)])
      .when(reserve('b1', 1000))
      .then([reserved('b1', 2, 2000)]);
    // Credits short: half of what is free, as long as it holds one longest request.
    spec
      .given([registered(100, 4)])
      .when(reserve('b1', 20))
      .then([reserved('b1', 2, 40)]);
    spec
      .given([registered(100, 4)])
      .when(reserve('b1', 60))
      .thenFails('invalid', 'Insufficient credits: 60 characters requested, 100 available', {
        code: 'insufficient_credits',
      });
    // Reserving the same block again changes nothing.
    spec
      .given([registered(10_000, 4), reserved('b1', 2, 2000)])
      .when(reserve('b1', 1000))
      .then([]);
  });

  it('reserves no block for an organization allowed one request at a time', () =>
    spec
      .given([registered(10_000, 1)])
      .when(reserve('b1', 100))
      .thenFails('conflict', 'Too many simultaneous requests (limit 1)', { code: 'concurrency_limit_exceeded' }));

  it('refuses a block when no slot is free', () =>
    spec
      .given([registered(10_000, 2), started('s1', 10), started('s2', 10)])
      .when(reserve('b1', 100))
      .thenFails('conflict', 'Too many simultaneous requests (limit 2)', { code: 'concurrency_limit_exceeded' }));

  it('a block counts against the limits as a whole: slots and characters held for requests one by one are fewer', () => {
    // Limit 3: the block holds 2 slots, one request holds the third.
    spec
      .given([registered(10_000, 3), reserved('b1', 2, 2000), started('s1', 10)])
      .when(start('s2', 10))
      .thenFails('conflict', 'Too many simultaneous requests (limit 3)', { code: 'concurrency_limit_exceeded' });
    // 10,000 credits, 2,000 held by the block: 8,000 for a request one by one.
    spec
      .given([registered(10_000, 4), reserved('b1', 2, 2000)])
      .when(start('s1', 8001))
      .thenFails('invalid', 'Insufficient credits: 8001 characters requested, 8000 available', {
        code: 'insufficient_credits',
      });
    spec
      .given([registered(10_000, 4), reserved('b1', 2, 2000)])
      .when(start('s1', 8000))
      .then([started('s1', 8000)]);
  });

  it('records a request admitted into a block without deciding it again; it holds no slot of its own', () => {
    spec
      .given([registered(10_000, 2), reserved('b1', 1, 1000)])
      .when(start('s1', 500, 'b1'))
      .then([started('s1', 500, 'b1')]);
    // The block's slot is the request's: the other slot is still free for a request one by one.
    spec
      .given([registered(10_000, 2), reserved('b1', 1, 1000), started('s1', 500, 'b1')])
      .when(start('s2', 10))
      .then([started('s2', 10)]);
  });

  it("charges a block's request what was spoken, and what it paid leaves the block's hold", () => {
    const history = [registered(10_000, 4), reserved('b1', 2, 2000), started('s1', 500, 'b1')];
    spec
      .given(history)
      .when(finish('s1', 300))
      .then([finished('s1', 300, 9700)]);
    // 9,700 left; the block holds 2,000 less the 300 paid: 8,000 free for a request one by one.
    spec
      .given([...history, finished('s1', 300, 9700)])
      .when(start('s2', 8000))
      .then([started('s2', 8000)]);
    spec
      .given([...history, finished('s1', 300, 9700)])
      .when(start('s2', 8001))
      .thenFails('invalid', 'Insufficient credits: 8001 characters requested, 8000 available');
  });

  it('a released block holds nothing; releasing again changes nothing', () => {
    const released: OrganizationEvent = { type: 'SpeechCapacityReleased', data: { blockId: 'b1', at } };
    spec
      .given([registered(10_000, 2), reserved('b1', 1, 1000)])
      .when({ type: 'ReleaseSpeechCapacity', blockId: 'b1', at })
      .then([released]);
    spec
      .given([registered(10_000, 2), reserved('b1', 1, 1000), released])
      .when({ type: 'ReleaseSpeechCapacity', blockId: 'b1', at })
      .then([]);
    spec
      .given([registered(10_000, 2), reserved('b1', 1, 1000), started('s1', 10), released])
      .when(start('s2', 10))
      .then([started('s2', 10)]);
  });

  it('a block whose replica died stops counting at its lease end; only the finishes recorded in it are charged', () => {
    // The replica died holding b1 (both slots), with s1 recorded and never finished.
    const history = [registered(1000, 2), reserved('b1', 2, 500), started('s1', 200, 'b1')];
    spec.given(history).when(start('s2', 10)).thenFails('conflict', 'Too many simultaneous requests (limit 2)');
    const { type: _type, ...data } = start('s2', 1000, undefined, later);
    spec
      .given(history)
      .when(start('s2', 1000, undefined, later))
      .then([{ type: 'SpeechRequestStarted', data }]);
    // A finish that comes late is still charged, once.
    spec
      .given(history)
      .when(finish('s1', 150, later))
      .then([finished('s1', 150, 850, later)]);
  });
});
