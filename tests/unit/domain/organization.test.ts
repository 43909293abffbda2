import {
  organizationDecider,
  type OrganizationEvent,
  type SpeechOutcome,
} from '../../../domain/organizations/organization';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(organizationDecider);
const registered: OrganizationEvent = {
  type: 'OrganizationRegistered',
  data: { organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits: 100, concurrencyLimit: 5, at },
};

describe('organization', () => {
  it('registers once', () => {
    spec
      .given([])
      .when({
        type: 'RegisterOrganization',
        organizationId: 'o1',
        name: 'Acme',
        organizationType: 'collection',
        credits: 100,
        concurrencyLimit: 5,
        at,
      })
      .then([registered]);
    spec
      .given([registered])
      .when({
        type: 'RegisterOrganization',
        organizationId: 'o1',
        name: 'Acme',
        organizationType: 'collection',
        credits: 100,
        concurrencyLimit: 5,
        at,
      })
      .thenFails('conflict', 'Organization already exists');
  });

  it('adjusts credits with the resulting balance, never below zero', () => {
    spec
      .given([registered])
      .when({ type: 'AdjustCredits', amount: -40, at })
      .then([{ type: 'CreditsAdjusted', data: { amount: -40, balance: 60, at } }]);
    spec
      .given([registered])
      .when({ type: 'AdjustCredits', amount: -101, at })
      .thenFails('invalid', 'Credits cannot go below zero (balance 100)');
    spec.given([]).when({ type: 'AdjustCredits', amount: 1, at }).thenFails('not_found', 'Organization not found');
  });
});

describe('organization: speech admission and charging', () => {
  const details = { voiceId: 'v', language: 'en', sampleRate: 24000, speed: 1, channel: 'rest' as const };
  const limited: OrganizationEvent = {
    type: 'OrganizationRegistered',
    data: { organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits: 100, concurrencyLimit: 2, at },
  };
  const started = (
    speechId: string,
    characters: number,
    leaseUntil = '2026-03-01T10:10:00.000Z',
  ): OrganizationEvent => ({
    type: 'SpeechRequestStarted',
    data: { speechId, requestId: 'client-1', characters, leaseUntil, at, ...details },
  });
  const start = (speechId: string, characters: number, when = at) => ({
    type: 'StartSpeechRequest' as const,
    speechId,
    requestId: 'client-1',
    characters,
    leaseUntil: '2026-03-01T10:10:00.000Z',
    at: when,
    ...details,
  });

  it('starts a request within the limit and the balance; client request ids may repeat', () =>
    spec
      .given([limited, started('r0', 10)])
      .when(start('r1', 60))
      .then([started('r1', 60)]));

  it('refuses beyond the concurrency limit', () =>
    spec
      .given([limited, started('r1', 10), started('r2', 10)])
      .when(start('r3', 10))
      .thenFails('conflict', 'Too many simultaneous requests (limit 2)', { code: 'concurrency_limit_exceeded' }));

  it('refuses when the balance less what running requests reserved is too low', () =>
    spec
      .given([limited, started('r1', 60)])
      .when(start('r2', 41))
      .thenFails('invalid', 'Insufficient credits: 41 characters requested, 40 available', {
        code: 'insufficient_credits',
      }));

  it('a finished request frees its slot and is charged what was spoken', () => {
    const finished: OrganizationEvent = {
      type: 'SpeechRequestFinished',
      data: {
        speechId: 'r1',
        requestId: 'client-1',
        charactersSpoken: 25,
        charged: 25,
        balance: 75,
        audioDurationMs: 1500,
        outcome: 'cancelled',
        at,
      },
    };
    spec
      .given([limited, started('r1', 60)])
      .when({
        type: 'FinishSpeechRequest',
        speechId: 'r1',
        requestId: 'client-1',
        charactersSpoken: 25,
        audioDurationMs: 1500,
        outcome: 'cancelled',
        at,
      })
      .then([finished]);
    // 75 left, 10 reserved by r2: exactly 65 can start, 66 cannot.
    spec
      .given([limited, started('r1', 60), started('r2', 10), finished])
      .when(start('r3', 65))
      .then([started('r3', 65)]);
    spec
      .given([limited, started('r1', 60), started('r2', 10), finished])
      .when(start('r3', 66))
      .thenFails('invalid', 'Insufficient credits: 66 characters requested, 65 available');
  });

  it('finishing twice changes nothing', () =>
    spec
      .given([
        limited,
        started('r1', 60),
        {
          type: 'SpeechRequestFinished',
          data: {
            speechId: 'r1',
            requestId: 'client-1',
            charactersSpoken: 60,
            charged: 60,
            balance: 40,
            audioDurationMs: 3000,
            outcome: 'completed',
            at,
          },
        },
      ])
      .when({
        type: 'FinishSpeechRequest',
        speechId: 'r1',
        requestId: 'client-1',
        charactersSpoken: 60,
        audioDurationMs: 3000,
        outcome: 'completed',
        at,
      })
      .then([]));

  it('a request whose lease ended (its process died) no longer holds a slot', () =>
    spec
      .given([limited, started('r1', 10, '2026-03-01T10:00:30.000Z'), started('r2', 10, '2026-03-01T10:00:30.000Z')])
      .when(start('r3', 10, '2026-03-01T10:01:00.000Z'))
      .then([
        {
          type: 'SpeechRequestStarted',
          data: {
            speechId: 'r3',
            requestId: 'client-1',
            characters: 10,
            leaseUntil: '2026-03-01T10:10:00.000Z',
            at: '2026-03-01T10:01:00.000Z',
            ...details,
          },
        },
      ]));

  it('a request finished after its lease ended is still charged, once, even after others finished meanwhile', () => {
    const finishedAt = (
      speechId: string,
      when: string,
      spoken: number,
      balance: number,
      outcome: SpeechOutcome = 'completed',
    ): OrganizationEvent => ({
      type: 'SpeechRequestFinished',
      data: {
        speechId,
        requestId: 'client-1',
        charactersSpoken: spoken,
        charged: spoken,
        balance,
        audioDurationMs: 2000,
        outcome,
        at: when,
      },
    });
    const finish = (when: string) => ({
      type: 'FinishSpeechRequest' as const,
      speechId: 'late',
      requestId: 'client-1',
      charactersSpoken: 30,
      audioDurationMs: 2000,
      outcome: 'timed_out' as const,
      at: when,
    });
    // 'late' leased until 10:00:30; 'other' finishes at 10:05, after that lease ended.
    const history = [
      limited,
      started('late', 40, '2026-03-01T10:00:30.000Z'),
      started('other', 10),
      finishedAt('other', '2026-03-01T10:05:00.000Z', 10, 90),
    ];
    const charged = finishedAt('late', '2026-03-01T10:06:00.000Z', 30, 60, 'timed_out');
    spec.given(history).when(finish('2026-03-01T10:06:00.000Z')).then([charged]);
    spec
      .given([...history, charged])
      .when(finish('2026-03-01T10:07:00.000Z'))
      .then([]);
  });

  it('forgets a request a day after its lease ended', () =>
    spec
      .given([
        limited,
        started('gone', 40, '2026-03-01T10:00:30.000Z'),
        started('other', 10),
        {
          type: 'SpeechRequestFinished',
          data: {
            speechId: 'other',
            requestId: 'client-1',
            charactersSpoken: 10,
            charged: 10,
            balance: 90,
            audioDurationMs: 500,
            outcome: 'completed',
            at: '2026-03-02T10:00:31.000Z',
          },
        },
      ])
      .when({
        type: 'FinishSpeechRequest',
        speechId: 'gone',
        requestId: 'client-1',
        charactersSpoken: 30,
        audioDurationMs: 2000,
        outcome: 'completed',
        at: '2026-03-02T10:01:00.000Z',
      })
      .then([]));
});
