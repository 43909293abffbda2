import { isIsoDate } from '../../../../domain/shared/format';
import { languageCodes, type LanguageCode } from '../../../../domain/shared/languages';
import {
  simulateCall,
  type CustomerIntent,
  type SimulatedCall,
} from '../../../../domain/calls/simulation/simulate-call';
import { at, collectionInput, fullCatalog, leadInput, seeds } from './fixtures';
import { foreignLetters, scriptOf, withoutWords } from './scripts';

const answered = (calls: SimulatedCall[]) => calls.filter((call) => call.outcome === 'answered');
const share = <T>(items: T[], test: (item: T) => boolean) => items.filter(test).length / items.length;

describe('simulated call', () => {
  describe('determinism', () => {
    it('is the same call for the same seed', () => {
      for (const seed of seeds(30))
        expect(simulateCall(collectionInput(seed))).toEqual(simulateCall(collectionInput(seed)));
    });

    it('differs across seeds', () => {
      const distinct = new Set(seeds(50).map((seed) => JSON.stringify(simulateCall(collectionInput(seed)))));
      expect(distinct.size).toBeGreaterThan(45);
    });

    it('refuses a malformed call time rather than invent dates', () => {
      expect(() => simulateCall({ ...collectionInput('s'), at: 'yesterday' })).toThrow(RangeError);
    });
  });

  describe('ringing', () => {
    const calls = seeds(500).map((seed) => simulateCall(collectionInput(seed)));

    it('is answered most of the time but not always, and every other outcome happens', () => {
      expect(share(calls, (call) => call.outcome === 'answered')).toBeGreaterThan(0.5);
      expect(share(calls, (call) => call.outcome === 'answered')).toBeLessThan(0.9);
      for (const outcome of ['busy', 'no_answer', 'voicemail', 'failed'])
        expect(calls.some((call) => call.outcome === outcome)).toBe(true);
    });

    it('holds a conversation only when answered, a voicemail message only on voicemail', () => {
      for (const call of calls) {
        if (call.outcome === 'answered') {
          expect(call.turns.length).toBeGreaterThanOrEqual(2);
          expect(call.intent).not.toBeNull();
          expect(['completed', 'customer_hung_up']).toContain(call.endReason);
        } else if (call.outcome === 'voicemail') {
          expect(call.turns).toHaveLength(1);
          expect(call.turns[0]?.speaker).toBe('BOT');
          expect(call.endReason).toBe('voicemail_left');
        } else {
          expect(call.turns).toEqual([]);
          expect(call.durationSeconds).toBe(0);
          expect(call.intent).toBeNull();
        }
      }
    });

    it.each(['12345', 'not a number', '', '+91 98765 43210 98765', undefined, 12])(
      'always fails the number %j',
      (phone_number) => {
        for (const seed of seeds(50)) {
          const call = simulateCall(collectionInput(seed, { phone_number }));
          expect(call).toMatchObject({
            outcome: 'failed',
            endReason: 'invalid_number',
            ringSeconds: 0,
            turns: [],
            durationSeconds: 0,
          });
          expect(call.disposition).toEqual({ id: 'invalid', name: 'Invalid Number' });
          expect(call.summary).toMatch(/not valid/);
        }
      },
    );

    it('dials a formatted valid number', () => {
      const outcomes = seeds(50).map(
        (seed) => simulateCall(collectionInput(seed, { phone_number: '+91 98765-43210' })).outcome,
      );
      expect(outcomes).toContain('answered');
    });
  });

  describe('conversation', () => {
    const conversations = answered(seeds(300).map((seed) => simulateCall(collectionInput(seed))));

    it('starts with the agent greeting the customer by first name and alternates speakers', () => {
      for (const { turns } of conversations) {
        expect(turns[0]?.speaker).toBe('BOT');
        expect(turns[0]?.message).toContain('Ravi');
        expect(turns[0]?.message).toContain('Asha');
        turns.slice(1).forEach((turn, index) => expect(turn.speaker).not.toBe(turns[index]?.speaker));
      }
    });

    it('fills every placeholder, with amounts grouped the Indian way', () => {
      for (const { turns } of conversations)
        for (const turn of turns) expect(turn.message).not.toMatch(/\{\{|\}\}|undefined|null/);
      expect(conversations.some(({ turns }) => turns.some((turn) => turn.message.includes('₹4,500')))).toBe(true);
    });

    it('times turns one after another and lasts as long as they do', () => {
      for (const call of conversations) {
        call.turns.forEach((turn, index) => {
          expect(turn.durationMs).toBeGreaterThan(0);
          const previous = call.turns[index - 1];
          if (previous) expect(turn.offsetMs).toBeGreaterThanOrEqual(previous.offsetMs + previous.durationMs);
        });
        const last = call.turns[call.turns.length - 1];
        expect(call.durationSeconds * 1000).toBeGreaterThanOrEqual((last?.offsetMs ?? 0) + (last?.durationMs ?? 0));
      }
    });

    it.each(languageCodes)('speaks %s in its own script', (language: LanguageCode) => {
      const word = {
        en: 'English',
        hi: 'hindi',
        mr: 'Marathi',
        ta: 'tamil',
        te: 'telugu',
        gu: 'gujarati',
        kn: 'kannada',
        ml: 'malayalam',
        bn: 'bangla',
        pa: 'punjabi',
        od: 'oriya',
        as: 'assamese',
      }[language];
      const calls = seeds(80, language).map((seed) => simulateCall(collectionInput(seed, { language: word })));
      const spoken = calls.filter((call) => call.turns.length > 0);
      expect(spoken.length).toBeGreaterThan(40);
      for (const call of calls) {
        expect(call.language).toBe(language);
        expect(call.extractedData.language).toBe(language);
      }
      for (const { turns } of spoken) {
        for (const { message } of turns) {
          const ownWords = withoutWords(message, ['Ravi', 'Asha']);
          expect({ message, foreign: foreignLetters(ownWords, language) }).toEqual({ message, foreign: [] });
          expect(scriptOf[language].test(ownWords)).toBe(true);
        }
      }
    });

    it('speaks the agent language when the record has no language, and English by default', () => {
      const noLanguage = { language: undefined };
      expect(
        simulateCall({ ...collectionInput('s', noLanguage), agent: { name: 'Asha', language: 'kn' } }).language,
      ).toBe('kn');
      expect(simulateCall(collectionInput('s', noLanguage)).language).toBe('en');
      expect(simulateCall({ ...collectionInput('s', { language: 'klingon' }), defaultLanguage: 'ta' }).language).toBe(
        'ta',
      );
    });

    it("uses the agent's own greeting and lines in the agent's language, filled from the record", () => {
      const agent = {
        name: 'Asha',
        language: 'en' as const,
        greeting: 'Hi {{ first_name }}, {{agent_name}} from Sunrise Finance.',
        lines: ['Loan {{loan_id}}: your EMI is ₹{{emi_amount}}.', 'Can you pay this week?'],
      };
      const calls = answered(seeds(60).map((seed) => simulateCall({ ...collectionInput(seed), agent })));
      const full = calls.filter((call) => call.turns.length >= 6);
      expect(full.length).toBeGreaterThan(0);
      for (const { turns } of calls) expect(turns[0]?.message).toBe('Hi Ravi, Asha from Sunrise Finance.');
      for (const { turns } of full) {
        expect(turns[2]?.message).toBe('Loan LN-1001: your EMI is ₹4,500.');
        expect(turns[4]?.message).toBe('Can you pay this week?');
      }
    });

    it("speaks the built-in phrases of the customer's language rather than the agent's English script", () => {
      const agent = { name: 'Asha', language: 'en' as const, greeting: 'Hi {{first_name}}!' };
      const [call] = answered(
        seeds(20).map((seed) => simulateCall({ ...collectionInput(seed, { language: 'hindi' }), agent })),
      );
      expect(call?.turns[0]?.message).not.toBe('Hi Ravi!');
      expect(scriptOf.hi.test(call?.turns[0]?.message ?? '')).toBe(true);
    });
  });

  describe('intent', () => {
    const intentsOf = (status: string) =>
      answered(seeds(500, status).map((seed) => simulateCall(collectionInput(seed, { payment_status: status })))).map(
        (call) => call.intent as CustomerIntent,
      );

    it('is mostly "already paid" for customers whose instalment is paid or received', () => {
      expect(share(intentsOf('paid'), (intent) => intent === 'already_paid')).toBeGreaterThan(0.6);
      expect(share(intentsOf('received'), (intent) => intent === 'already_paid')).toBeGreaterThan(0.6);
    });

    it('is mostly a promise or a request for time for a bounced instalment', () => {
      const intents = intentsOf('bounced');
      expect(share(intents, (intent) => intent === 'promise_to_pay' || intent === 'request_more_time')).toBeGreaterThan(
        0.6,
      );
      expect(share(intents, (intent) => intent === 'already_paid')).toBeLessThan(0.15);
    });

    it('is a lead answer for lead generation', () => {
      const calls = answered(seeds(300).map((seed) => simulateCall(leadInput(seed))));
      const leadIntents: (CustomerIntent | null)[] = ['interested', 'not_interested', 'callback_later', 'wrong_number'];
      for (const call of calls) expect(leadIntents).toContain(call.intent);
      expect(new Set(calls.map((call) => call.intent)).size).toBe(4);
      const interested = calls.find((call) => call.intent === 'interested');
      expect(interested?.extractedData.interested).toBe(true);
      expect(interested?.summary).toMatch(/^Lead is interested/);
      expect(calls.find((call) => call.intent === 'not_interested')?.extractedData.interested).toBe(false);
    });
  });

  describe('promises', () => {
    const promises = answered(seeds(400).map((seed) => simulateCall(collectionInput(seed)))).filter(
      (call) => call.intent === 'promise_to_pay' || call.intent === 'request_more_time',
    );

    it('are for a real calendar date a few days after the call, with the EMI amount', () => {
      expect(promises.length).toBeGreaterThan(50);
      for (const { extractedData, summary } of promises) {
        const date = extractedData.promised_payment_date as string;
        expect(isIsoDate(date)).toBe(true);
        expect(date > at.slice(0, 10)).toBe(true);
        expect(Date.parse(date) - Date.parse(at)).toBeLessThan(25 * 24 * 3600 * 1000);
        expect(extractedData.promised_amount).toBe(4500);
        expect(summary).toContain(date);
        expect(summary).toContain('₹4,500');
      }
    });

    it('are said in the conversation as the same day, in the words of the language', () => {
      for (const call of promises) {
        const day = Number(call.extractedData.promised_payment_date?.slice(8));
        expect(call.turns.some((turn) => turn.speaker === 'HUMAN' && turn.message.includes(`${day} March`))).toBe(true);
      }
      const hindi = answered(seeds(100).map((seed) => simulateCall(collectionInput(seed, { language: 'hindi' })))).find(
        (call) => call.intent === 'promise_to_pay',
      );
      const day = Number(hindi?.extractedData.promised_payment_date?.slice(8));
      expect(hindi?.turns.some((turn) => turn.message.includes(`${day} मार्च`))).toBe(true);
    });

    it('cross into the next year when the call is at the end of the year', () => {
      const lateInput = (seed: string) => ({ ...collectionInput(seed), at: '2026-12-30T20:00:00.000Z' });
      const dates = answered(seeds(200).map((seed) => simulateCall(lateInput(seed))))
        .map((call) => call.extractedData.promised_payment_date)
        .filter((date): date is string => date !== undefined);
      expect(dates.some((date) => date.startsWith('2027-'))).toBe(true);
      for (const date of dates) expect(isIsoDate(date) && date > '2026-12-30').toBe(true);
    });

    it('come with a call-back time, tomorrow in Indian office hours, when the customer is busy', () => {
      const callbacks = answered(seeds(400).map((seed) => simulateCall(collectionInput(seed)))).filter(
        (call) => call.intent === 'callback_later',
      );
      expect(callbacks.length).toBeGreaterThan(0);
      for (const { extractedData } of callbacks) {
        const time = new Date(extractedData.callback_time as string);
        const istMinutes = (time.getUTCHours() * 60 + time.getUTCMinutes() + 330) % 1440;
        expect(time.getTime()).toBeGreaterThan(Date.parse(at));
        expect(istMinutes).toBeGreaterThanOrEqual(10 * 60);
        expect(istMinutes).toBeLessThanOrEqual(18 * 60);
      }
    });
  });

  describe('disposition and summary', () => {
    const expected: Record<CustomerIntent, string> = {
      promise_to_pay: 'PTP',
      request_more_time: 'Needs More Time',
      already_paid: 'Already Paid',
      dispute: 'Dispute',
      wrong_number: 'Wrong Number',
      callback_later: 'Call Back Later',
      interested: 'Interested',
      not_interested: 'Not Interested',
    };
    const calls = [
      ...seeds(300).map((seed) => simulateCall(collectionInput(seed, { payment_status: 'partial' }))),
      ...seeds(200).map((seed) => simulateCall(leadInput(seed))),
    ];

    it('follows the intent when the campaign has a matching disposition', () => {
      const conversations = answered(calls);
      expect(new Set(conversations.map((call) => call.intent)).size).toBe(8);
      for (const call of conversations) expect(call.disposition?.name).toBe(expected[call.intent as CustomerIntent]);
    });

    it('names how an unanswered call ended', () => {
      const byOutcome = { busy: 'Busy', no_answer: 'No Answer', voicemail: 'Voicemail' } as const;
      for (const call of calls) {
        if (call.outcome in byOutcome)
          expect(call.disposition?.name).toBe(byOutcome[call.outcome as keyof typeof byOutcome]);
        if (call.outcome === 'failed') expect(call.disposition?.name).toBe('Unreachable');
      }
    });

    it('is null when the campaign has no dispositions, and for a missed call without a fitting one', () => {
      for (const seed of seeds(50))
        expect(simulateCall({ ...collectionInput(seed), dispositions: [] }).disposition).toBeNull();
      const onlyPtp = seeds(100).map((seed) =>
        simulateCall({ ...collectionInput(seed), dispositions: [{ id: 'ptp', name: 'PTP' }] }),
      );
      for (const call of onlyPtp)
        expect(call.disposition).toEqual(call.outcome === 'answered' ? { id: 'ptp', name: 'PTP' } : null);
    });

    it('always picks one of the campaign dispositions', () => {
      const ids = new Set(fullCatalog.map((disposition) => disposition.id));
      for (const call of calls) if (call.disposition) expect(ids.has(call.disposition.id)).toBe(true);
    });

    it('summarizes in English whatever the call language', () => {
      const hindiCalls = seeds(100).map((seed) => simulateCall(collectionInput(seed, { language: 'hindi' })));
      for (const call of hindiCalls) {
        expect(call.summary).toMatch(/^[\x20-\x7E₹]+$/);
        expect(call.summary.split(/(?<=\.)\s/).length).toBeLessThanOrEqual(2);
      }
      const paid = answered(
        seeds(100).map((seed) => simulateCall(collectionInput(seed, { payment_status: 'paid' }))),
      ).find((call) => call.intent === 'already_paid');
      expect(paid?.summary).toMatch(/already been paid/);
      expect(paid?.extractedData).toMatchObject({
        intent: 'already_paid',
        sentiment: 'neutral',
        call_outcome: 'answered',
      });
    });
  });
});
