import {
  chatDecider,
  latestActivity,
  type ChatCommand,
  type ChatEvent,
  type ChatState,
  type ChatTarget,
} from '../../../../domain/chats/chat';
import { durationText, inactiveClose, inactivitySummary } from '../../../../domain/chats/inactivity';
import { chatTarget } from '../../../support/chats';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(chatDecider);
const target: ChatTarget = chatTarget();
const t = (minutes: number) => new Date(Date.UTC(2026, 2, 1, 10, minutes)).toISOString();
const requested: ChatEvent = { type: 'ChatRequested', data: { messageId: 'm1', at: t(0), ...target } };
const sent: ChatEvent = { type: 'ChatSent', data: { messageId: 'm1', at: t(1) } };
const reply: ChatEvent = {
  type: 'ChatMessageAdded',
  data: { messageId: 'm1', at: t(30), entryId: 'p:1', role: 'user', content: 'Tomorrow.' },
};
const stateOf = (events: ChatEvent[]): ChatState => events.reduce(chatDecider.evolve, chatDecider.initialState());
const lastActivityOf = (events: ChatEvent[]) => {
  const state = stateOf(events);
  return state.status === 'none' ? null : state.lastActivityAt;
};
const inactive = (at: string, quietSince: string): ChatCommand => ({
  type: 'CloseChat',
  at,
  reason: 'inactive',
  disposition: null,
  summary: inactivitySummary(3600),
  quietSince,
});
const endedInactive = (at: string, status: 'Accepted' | 'Sent'): ChatEvent => ({
  type: 'ChatEnded',
  data: {
    messageId: 'm1',
    at,
    status,
    reason: 'inactive',
    disposition: null,
    summary: 'No activity for 1 hour; the conversation was closed.',
  },
});

describe('a chat going quiet', () => {
  it('keeps the time of its last activity: the latest time its events carry, in UTC', () => {
    expect(lastActivityOf([requested])).toBe(t(0));
    expect(lastActivityOf([requested, sent, reply])).toBe(t(30));
    // A late report with an earlier time does not move the last activity back.
    expect(lastActivityOf([requested, reply, sent])).toBe(t(30));
    // A platform may report with an offset: 15:30 in India is 10:00 UTC.
    expect(
      lastActivityOf([requested, { type: 'ChatSent', data: { messageId: 'm1', at: '2026-03-01T16:30:00+05:30' } }]),
    ).toBe(t(60));
  });

  it('reads canonical times as the dates they name, days the calendar lacks included', () => {
    const slow = (current: string | null, at: string) => {
      const time = Date.parse(at);
      if (Number.isNaN(time)) return current ?? at;
      return current !== null && Date.parse(current) >= time ? current : new Date(time).toISOString();
    };
    const times = [
      '2026-03-01T10:00:00.000Z',
      '2026-03-01T09:59:59.999Z',
      '2024-02-29T00:00:00.000Z',
      '2026-02-29T00:00:00.000Z',
      '2026-04-31T12:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2026-03-01T10:00:00Z',
      '2026-03-01T10:00:00.000+00:00',
      'not a time',
    ];
    for (const current of [null, ...times])
      for (const at of times) expect(latestActivity(current, at)).toBe(slow(current, at));
  });

  it('ignores a time that does not parse', () => {
    expect(latestActivity(t(5), 'not a time')).toBe(t(5));
    expect(latestActivity(null, '2026-03-01T10:00:00Z')).toBe(t(0));
  });

  it('is closed by a close asking for quiet since a time nothing happened after', () => {
    spec
      .given([requested, sent])
      .when(inactive(t(61), t(1)))
      .then([endedInactive(t(61), 'Sent')]);
    spec
      .given([requested, sent])
      .when(inactive(t(90), t(30)))
      .then([endedInactive(t(90), 'Sent')]);
  });

  it('is not closed before it was sent: a chat on its way is not inactive', () => {
    spec
      .given([requested])
      .when(inactive(t(61), t(0)))
      .then([]);
  });

  it('is not closed when something happened after that time (a late activity moved the deadline)', () => {
    spec
      .given([requested, sent, reply])
      .when(inactive(t(61), t(1)))
      .then([]);
  });

  it('is not closed again once it ended, whoever ended it', () => {
    const platformClosed: ChatEvent = {
      type: 'ChatEnded',
      data: { messageId: 'm1', at: t(40), status: 'Sent', reason: 'completed', disposition: null, summary: '' },
    };
    spec
      .given([requested, sent, platformClosed])
      .when(inactive(t(200), t(100)))
      .then([]);
    spec
      .given([requested, sent, endedInactive(t(61), 'Sent')])
      .when(inactive(t(200), t(100)))
      .then([]);
    spec
      .given([requested, sent, endedInactive(t(61), 'Sent')])
      .when({ type: 'CloseChat', at: t(70), reason: 'completed', disposition: null, summary: '' })
      .then([]);
  });
});

describe('the inactive close', () => {
  const hour = 3600;
  it('is due once the timeout has passed since the last activity, not a moment before', () => {
    const state = stateOf([requested, sent, reply]);
    expect(inactiveClose(state, new Date(Date.parse(t(90)) - 1), hour)).toBeNull();
    expect(inactiveClose(state, new Date(t(90)), hour)).toEqual({
      type: 'CloseChat',
      at: t(90),
      reason: 'inactive',
      disposition: null,
      summary: 'No activity for 1 hour; the conversation was closed.',
      quietSince: t(30),
    });
  });

  it('is nothing for a chat that ended or does not exist', () => {
    expect(inactiveClose(stateOf([requested, endedInactive(t(61), 'Accepted')]), new Date(t(500)), hour)).toBeNull();
    expect(inactiveClose(stateOf([]), new Date(t(500)), hour)).toBeNull();
  });

  it('says how long the chat was quiet in the unit people would use', () => {
    expect(inactivitySummary(86_400)).toBe('No activity for 24 hours; the conversation was closed.');
    expect(durationText(3600)).toBe('1 hour');
    expect(durationText(7200)).toBe('2 hours');
    expect(durationText(2_592_000)).toBe('30 days');
    expect(durationText(172_800)).toBe('2 days');
    expect(durationText(90_000)).toBe('25 hours');
    expect(durationText(5400)).toBe('90 minutes');
    expect(durationText(60)).toBe('1 minute');
    expect(durationText(90)).toBe('90 seconds');
    expect(durationText(1)).toBe('1 second');
  });
});
