import { pacingDecider, type PacingEvent } from '../../../domain/campaigns/pacing';
import { specFor } from '../../support/decider-spec';

const spec = specFor(pacingDecider);
const t0 = '2027-03-02T05:00:00.000Z';
const t1 = '2027-03-02T05:00:01.000Z';
const t2 = '2027-03-02T05:00:02.000Z';
const limits = { maxConcurrentCalls: 2, callsPerMinute: 60 };
const taken = (callId: string, at: string, nextAt: string): PacingEvent => ({
  type: 'DialSlotTaken',
  data: { callId, at, nextAt },
});

describe('campaign pacing', () => {
  it('takes a slot, and the next dial waits one interval for its turn', () => {
    spec
      .given([])
      .when({ type: 'TakeDialSlot', callId: 'a', at: t0, ...limits })
      .then([taken('a', t0, t1)]);
    spec
      .given([taken('a', t0, t1)])
      .when({ type: 'TakeDialSlot', callId: 'b', at: t0, ...limits })
      .then([{ type: 'DialSlotDeferred', data: { callId: 'b', until: t1, nextAt: t2, at: t0 } }]);
  });

  it('lets a call go at its turn, and never beyond the calls allowed at once', () => {
    const deferred: PacingEvent = { type: 'DialSlotDeferred', data: { callId: 'b', until: t1, nextAt: t2, at: t0 } };
    spec
      .given([taken('a', t0, t1), deferred])
      .when({ type: 'TakeDialSlot', callId: 'b', at: t1, ...limits })
      .then([taken('b', t1, t2)]);
    spec
      .given([taken('a', t0, t1), taken('b', t1, t2)])
      .when({ type: 'TakeDialSlot', callId: 'c', at: t2, ...limits })
      .then([
        {
          type: 'DialSlotDeferred',
          data: { callId: 'c', until: t2, nextAt: '2027-03-02T05:00:03.000Z', at: t2 },
        },
      ]);
  });

  it('gives a slot back once when the call ends; a slot already held is not taken twice', () => {
    const released: PacingEvent = { type: 'DialSlotReleased', data: { callId: 'a', at: t1 } };
    spec
      .given([taken('a', t0, t1)])
      .when({ type: 'ReleaseDialSlot', callId: 'a', at: t1 })
      .then([released]);
    spec
      .given([taken('a', t0, t1), released])
      .when({ type: 'ReleaseDialSlot', callId: 'a', at: t1 })
      .then([]);
    spec
      .given([taken('a', t0, t1)])
      .when({ type: 'TakeDialSlot', callId: 'a', at: t2, ...limits })
      .then([]);
  });
});
