import { phrasesFor } from '../../../../domain/calls/simulation/phrases';
import {
  platformMsgIdOf,
  simulateChat,
  type ChatSimulationInput,
} from '../../../../domain/chats/simulation/simulate-chat';

const customer = {
  loan_id: 'L-1',
  first_name: 'Asha',
  last_name: 'Rao',
  phone_number: '+919812345678',
  emi_amount: 5000,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
  language: 'Tamil',
};
const dispositions = [
  { id: 'd1', name: 'Promise to pay' },
  { id: 'd2', name: 'Call back later' },
  { id: 'd3', name: 'No response' },
];
const input = (seed: string, extra: Partial<ChatSimulationInput> = {}): ChatSimulationInput => ({
  seed,
  at: '2026-03-01T10:00:00.000Z',
  organizationType: 'collection',
  to: customer.phone_number,
  customer,
  templateLanguage: 'en',
  conversation: { agent: { name: 'Asha', language: 'en' }, dispositions },
  ...extra,
});
const seeds = Array.from({ length: 300 }, (_, i) => `m-${i}`);

describe('simulated chat', () => {
  it('is the same chat for the same seed', () => {
    expect(simulateChat(input('m-1'))).toEqual(simulateChat(input('m-1')));
    expect(platformMsgIdOf('m-1')).toMatch(/^bmsg\.[0-9a-f]{32}$/);
    expect(platformMsgIdOf('m-1')).not.toBe(platformMsgIdOf('m-2'));
  });

  it('fails an invalid number at once with a delivery error object', () => {
    const chat = simulateChat(input('m-1', { to: '12345' }));
    expect(chat.outcome).toBe('failed');
    expect(chat.steps).toEqual([
      {
        afterSeconds: expect.any(Number),
        kind: 'status',
        status: 'Failed',
        errors: [
          {
            code: 4001,
            title: 'Invalid phone number',
            message: expect.any(String),
            href: '/chat/v1/errors#4001',
            error_data: { details: expect.stringContaining('12345') },
          },
        ],
      },
    ]);
  });

  it('produces every outcome over many messages, with steps in time order and one close unless failed', () => {
    const outcomes = new Set<string>();
    for (const seed of seeds) {
      const chat = simulateChat(input(seed));
      outcomes.add(chat.outcome);
      const times = chat.steps.map((s) => s.afterSeconds);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      const closes = chat.steps.filter((s) => s.kind === 'closed');
      expect(closes).toHaveLength(chat.outcome === 'failed' ? 0 : 1);
      if (chat.outcome === 'failed')
        expect(chat.steps[chat.steps.length - 1]).toMatchObject({ kind: 'status', status: 'Failed' });
      else expect(chat.steps[chat.steps.length - 1]!.kind).toBe('closed');
    }
    expect([...outcomes].sort()).toEqual(['failed', 'read', 'replied', 'undelivered', 'unread']);
  });

  it('with conversation settings, the agent answers in the customer language and the chat gets a configured disposition', () => {
    const replied = seeds.map((s) => simulateChat(input(s))).filter((c) => c.outcome === 'replied');
    expect(replied.length).toBeGreaterThan(50);
    const tamil = phrasesFor('ta');
    for (const chat of replied) {
      expect(chat.language).toBe('ta');
      const messages = chat.steps.flatMap((s) => (s.kind === 'message' ? [s] : []));
      expect(messages[0]!.role).toBe('user');
      expect(messages[1]!.role).toBe('assistant');
      // Both sides write Tamil: the agent's answer is one of the Tamil closings, filled.
      for (const m of messages) expect(m.content).toMatch(/[\u0B80-\u0BFF]/);
      const fixed = (template: string) => template.split(/\{\{[^}]*\}\}/).filter((part) => part.trim() !== '');
      expect(
        Object.values(tamil.closings).some((closing) =>
          fixed(closing).every((part) => messages[1]!.content.includes(part.trim())),
        ),
      ).toBe(true);
      const close = chat.steps.find((s) => s.kind === 'closed')!;
      expect(
        close.kind === 'closed' &&
          close.disposition !== null &&
          dispositions.map((d) => d.id).includes(close.disposition.id),
      ).toBe(true);
    }
  });

  it('without conversation settings the customer may reply but nobody answers and there is no disposition', () => {
    const chats = seeds.map((s) => simulateChat(input(s, { conversation: null })));
    const replied = chats.filter((c) => c.outcome === 'replied');
    expect(replied.length).toBeGreaterThan(0);
    for (const chat of chats) {
      for (const step of chat.steps) if (step.kind === 'message') expect(step.role).toBe('user');
      for (const step of chat.steps) if (step.kind === 'closed') expect(step.disposition).toBeNull();
    }
  });
});
