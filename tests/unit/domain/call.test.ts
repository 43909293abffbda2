import { callDecider, type CallEnding, type CallEvent, type CallTarget } from '../../../domain/calls/call';
import { specFor } from '../../support/decider-spec';

const spec = specFor(callDecider);
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-01T10:00:05.000Z';
const t2 = '2026-03-01T10:00:12.000Z';
const t3 = '2026-03-01T10:01:40.000Z';
const target: CallTarget = {
  organizationId: 'o1',
  campaignId: 'c1',
  campaignName: 'March EMI',
  customerKeyField: 'loan_id',
  customerKey: 'L-1',
  customerName: 'Asha Rao',
  to: '+919812345678',
  from: '+918000000001',
  agentId: 'a1',
  dispositionId: 'd-group',
  language: 'hi',
};
const ending: CallEnding = {
  status: 'Completed',
  reason: 'completed',
  durationSeconds: 88,
  disposition: { id: 'd1', name: 'Promise to pay' },
  summary: 'Customer agreed to pay.',
  extractedData: { intent: 'promise_to_pay' },
  transcript: [
    { speaker: 'BOT', message: 'Namaste' },
    { speaker: 'HUMAN', message: 'Haan' },
  ],
  transcriptId: 'tr-1',
  recordingId: 'rec-1',
};
const queued: CallEvent = { type: 'CallQueued', data: { callId: 'k1', at: t0, ...target } };
const ringing: CallEvent = { type: 'CallRinging', data: { callId: 'k1', at: t1 } };
const answered: CallEvent = { type: 'CallAnswered', data: { callId: 'k1', at: t2 } };
const ended: CallEvent = { type: 'CallEnded', data: { callId: 'k1', at: t3, ...ending } };

describe('call', () => {
  it('is queued once', () => {
    spec
      .given([])
      .when({ type: 'RequestCall', callId: 'k1', at: t0, ...target })
      .then([queued]);
    spec
      .given([queued])
      .when({ type: 'RequestCall', callId: 'k1', at: t0, ...target })
      .thenFails('invalid', 'Call k1 already exists');
  });

  const clear = { listed: false, revision: 3 };
  it('is dialed once, by one provider, only while queued', () => {
    const dialed: CallEvent = {
      type: 'CallDialed',
      data: { callId: 'k1', provider: 'builtin', at: t0, blacklistRevision: 3 },
    };
    spec.given([queued]).when({ type: 'DialCall', provider: 'builtin', at: t0, blacklist: clear }).then([dialed]);
    spec.given([queued, dialed]).when({ type: 'DialCall', provider: 'builtin', at: t1, blacklist: clear }).then([]);
    spec.given([queued, ringing]).when({ type: 'DialCall', provider: 'builtin', at: t1, blacklist: clear }).then([]);
  });

  it('is not dialed when the blacklist it was dispatched against lists its number: it fails as blacklisted', () => {
    spec
      .given([queued])
      .when({ type: 'DialCall', provider: 'builtin', at: t1, blacklist: { listed: true, revision: 7 } })
      .then([
        {
          type: 'CallEnded',
          data: {
            callId: 'k1',
            at: t1,
            status: 'Failed',
            reason: 'blacklisted',
            durationSeconds: 0,
            disposition: null,
            summary: 'The call was not placed: the number was blacklisted before it was dialed.',
            extractedData: {},
            transcript: [],
            transcriptId: null,
            recordingId: null,
          },
        },
      ]);
  });

  it('records the replica that plays it when the dial names one; a dial recorded without one still folds', () => {
    const dialedBy = (player: string): CallEvent => ({
      type: 'CallDialed',
      data: { callId: 'k1', provider: 'builtin', at: t0, player, blacklistRevision: 3 },
    });
    spec
      .given([queued])
      .when({ type: 'DialCall', provider: 'builtin', at: t0, player: 'replica-a', blacklist: clear })
      .then([dialedBy('replica-a')]);
    const legacy: CallEvent = { type: 'CallDialed', data: { callId: 'k1', provider: 'builtin', at: t0 } };
    expect([queued, legacy].reduce(callDecider.evolve, callDecider.initialState())).toMatchObject({
      dialedBy: 'builtin',
      player: null,
    });
    expect([queued, dialedBy('replica-a')].reduce(callDecider.evolve, callDecider.initialState())).toMatchObject({
      player: 'replica-a',
    });
  });

  describe('adoption by another replica', () => {
    const dialed: CallEvent = { type: 'CallDialed', data: { callId: 'k1', provider: 'builtin', at: t0, player: 'a' } };
    const adopt = (player: string, from: string | null) => ({ type: 'AdoptCall' as const, player, from, at: t2 });
    const adopted = (player: string, from: string | null): CallEvent => ({
      type: 'CallAdopted',
      data: { callId: 'k1', player, from, at: t2 },
    });

    it('takes the call from the player it names, while the call is dialed and not ended', () => {
      spec
        .given([queued, dialed])
        .when(adopt('b', 'a'))
        .then([adopted('b', 'a')]);
      spec
        .given([queued, dialed, ringing, answered])
        .when(adopt('b', 'a'))
        .then([adopted('b', 'a')]);
      expect([queued, dialed, adopted('b', 'a')].reduce(callDecider.evolve, callDecider.initialState())).toMatchObject({
        player: 'b',
        dialedBy: 'builtin',
        status: 'Queued',
      });
    });

    it('takes it once: a replica adopting from the former player after another adopted it gets nothing', () => {
      spec
        .given([queued, dialed, adopted('b', 'a')])
        .when(adopt('c', 'a'))
        .then([]);
      spec
        .given([queued, dialed, adopted('b', 'a')])
        .when(adopt('b', 'a'))
        .then([]);
      // Adopted again from its new player, when that one died too.
      spec
        .given([queued, dialed, adopted('b', 'a')])
        .when(adopt('c', 'b'))
        .then([adopted('c', 'b')]);
    });

    it('takes a call dialed before players were recorded from nobody (null)', () => {
      const legacy: CallEvent = { type: 'CallDialed', data: { callId: 'k1', provider: 'builtin', at: t0 } };
      spec
        .given([queued, legacy])
        .when(adopt('b', null))
        .then([adopted('b', null)]);
      spec.given([queued, legacy]).when(adopt('b', 'a')).then([]);
      spec.given([queued, dialed]).when(adopt('b', null)).then([]);
    });

    it('yields nothing for a call not dialed, ended, or adopted by its own player', () => {
      spec.given([queued]).when(adopt('b', null)).then([]);
      spec.given([queued, dialed, ringing, answered, ended]).when(adopt('b', 'a')).then([]);
      spec.given([queued, dialed]).when(adopt('a', 'a')).then([]);
      spec.given([]).when(adopt('b', 'a')).thenFails('not_found', 'Call not found');
    });
  });

  it('moves forward: ringing, answered, ended', () => {
    spec.given([queued]).when({ type: 'RecordCallRinging', at: t1 }).then([ringing]);
    spec.given([queued, ringing]).when({ type: 'RecordCallAnswered', at: t2 }).then([answered]);
    spec
      .given([queued, ringing, answered])
      .when({ type: 'RecordCallEnded', at: t3, ...ending })
      .then([ended]);
  });

  it('ignores reports that would move it backwards or repeat, whatever order they arrive in', () => {
    spec.given([queued, ringing, answered]).when({ type: 'RecordCallRinging', at: t1 }).then([]);
    spec.given([queued, ringing, answered, ended]).when({ type: 'RecordCallAnswered', at: t2 }).then([]);
    spec
      .given([queued, ringing, answered, ended])
      .when({ type: 'RecordCallEnded', at: t3, ...ending, status: 'Failed' })
      .then([]);
  });

  it('can end without being answered (no contact) or straight from the queue (failed)', () => {
    const noAnswer = {
      ...ending,
      status: 'No Contact' as const,
      reason: 'no_answer',
      durationSeconds: 0,
      transcript: [],
      transcriptId: null,
      recordingId: null,
    };
    spec
      .given([queued, ringing])
      .when({ type: 'RecordCallEnded', at: t3, ...noAnswer })
      .then([{ type: 'CallEnded', data: { callId: 'k1', at: t3, ...noAnswer } }]);
    const failed = { ...noAnswer, status: 'Failed' as const, reason: 'invalid_number' };
    spec
      .given([queued])
      .when({ type: 'RecordCallEnded', at: t1, ...failed })
      .then([{ type: 'CallEnded', data: { callId: 'k1', at: t1, ...failed } }]);
  });

  it('answers not found for reports about an unknown call', () =>
    spec.given([]).when({ type: 'RecordCallRinging', at: t1 }).thenFails('not_found', 'Call not found'));
});
