import { chooseDisposition, matchDisposition, nameMentions } from '../../../../domain/calls/simulation/dispositions';
import { seededRandom } from '../../../../domain/calls/simulation/random';

const named = (...names: string[]) => names.map((name, index) => ({ id: `d${index}`, name }));

describe('disposition matching', () => {
  it('matches keywords as words, ignoring case, spaces and hyphens', () => {
    expect(nameMentions('Promise To Pay', 'promise to pay')).toBe(true);
    expect(nameMentions('PTP - this week', 'ptp')).toBe(true);
    expect(nameMentions('Callback', 'call back')).toBe(true);
    expect(nameMentions('follow-up', 'follow up')).toBe(true);
    expect(nameMentions('Promised', 'promis*')).toBe(true);
    expect(nameMentions('Unpaid', 'paid')).toBe(false);
    expect(nameMentions('Laptop', 'ptp')).toBe(false);
  });

  it('does not take a negated name for the keyword', () => {
    expect(nameMentions('Not Interested', 'interested')).toBe(false);
    expect(nameMentions('Not Interested', 'not interested')).toBe(true);
    expect(nameMentions('Broken Promise', 'promis*')).toBe(false);
    expect(nameMentions('Payment not received', 'received')).toBe(false);
  });

  it('prefers the more specific keyword', () => {
    const dispositions = named('Paid', 'Already Paid');
    expect(matchDisposition(dispositions, 'already_paid')).toEqual({ id: 'd1', name: 'Already Paid' });
    expect(matchDisposition(named('Promise to Pay', 'More Time Requested'), 'request_more_time')?.name).toBe(
      'More Time Requested',
    );
    expect(matchDisposition(named('Promise to Pay'), 'request_more_time')?.name).toBe('Promise to Pay');
  });

  it('picks "Interested" for an interested lead and "Not Interested" for the others', () => {
    const dispositions = named('Not Interested', 'Interested');
    expect(matchDisposition(dispositions, 'interested')?.name).toBe('Interested');
    expect(matchDisposition(dispositions, 'not_interested')?.name).toBe('Not Interested');
  });

  it('gives an answered call without a matching name a seeded pick, preferring generic names', () => {
    const dispositions = named('Busy', 'Other', 'No Answer');
    expect(chooseDisposition(dispositions, 'dispute', seededRandom('x'))).toEqual({ id: 'd1', name: 'Other' });
    const onlyUnanswered = named('Busy', 'Voicemail', 'Interested');
    expect(chooseDisposition(onlyUnanswered, 'dispute', seededRandom('x'))?.name).toBe('Interested');
  });

  it('gives an unanswered call only a disposition that describes it', () => {
    expect(chooseDisposition(named('PTP', 'Other'), 'busy', seededRandom('x'))).toBeNull();
    expect(chooseDisposition(named('PTP', 'Line Busy'), 'busy', seededRandom('x'))?.name).toBe('Line Busy');
    expect(chooseDisposition(named('PTP', 'RNR'), 'no_answer', seededRandom('x'))?.name).toBe('RNR');
  });

  it('gives nothing when the campaign has no dispositions', () => {
    expect(chooseDisposition([], 'promise_to_pay', seededRandom('x'))).toBeNull();
    expect(chooseDisposition([], 'voicemail', seededRandom('x'))).toBeNull();
  });
});
