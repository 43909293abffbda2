import { decideRetry, retryOutcomeOf } from '../../../domain/campaigns/retry';

const now = new Date('2027-03-02T05:00:00.000Z');
const ist = 'Asia/Kolkata';
const noAnswer = { status: 'No Contact' as const, reason: 'no_answer' };

describe('campaign retries', () => {
  it('retries the outcomes the policy names, after its delay, with the next attempt number', () => {
    expect(decideRetry({ delayMinutes: 30 }, noAnswer, [{ at: '2027-03-02T04:59:00.000Z' }], ist, now)).toEqual({
      retry: true,
      attempt: 2,
      notBefore: '2027-03-02T05:30:00.000Z',
    });
    expect(decideRetry({ retryOn: ['busy'] }, noAnswer, [{ at: now.toISOString() }], ist, now)).toEqual({
      retry: false,
      why: 'not_retried',
    });
  });

  it('never retries a conversation that happened, nor an end no attempt can change', () => {
    expect(retryOutcomeOf({ status: 'Completed', reason: 'completed' })).toBeNull();
    expect(retryOutcomeOf({ status: 'Failed', reason: 'blacklisted' })).toBeNull();
    expect(retryOutcomeOf({ status: 'Failed', reason: 'unreachable' })).toBe('failed');
    expect(retryOutcomeOf({ status: 'No Contact', reason: 'busy' })).toBe('busy');
    expect(decideRetry({}, { status: 'Completed', reason: 'completed' }, [], ist, now)).toEqual({
      retry: false,
      why: 'final_outcome',
    });
  });

  it('moves an attempt past the day cap to the next local day, and stops at the total cap', () => {
    const today = [{ at: '2027-03-02T03:00:00.000Z' }, { at: '2027-03-02T04:00:00.000Z' }];
    // Midnight in India after 2 March is 18:30 UTC.
    expect(decideRetry({ maxAttemptsPerDay: 2 }, noAnswer, today, ist, now)).toEqual({
      retry: true,
      attempt: 3,
      notBefore: '2027-03-02T18:30:00.000Z',
    });
    expect(decideRetry({ maxAttemptsTotal: 2 }, noAnswer, today, ist, now)).toEqual({
      retry: false,
      why: 'out_of_attempts',
    });
  });
});
