import {
  chatDecider,
  type ChatCommand,
  type ChatEvent,
  type ChatStatus,
  type ChatTarget,
  type DeliveryError,
} from '../../../../domain/chats/chat';
import { chatTarget } from '../../../support/chats';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(chatDecider);
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-01T10:00:02.000Z';
const t2 = '2026-03-01T10:00:09.000Z';
const t3 = '2026-03-01T10:03:00.000Z';
const t4 = '2026-03-01T10:05:00.000Z';
const target: ChatTarget = chatTarget({ agentId: 'a1', dispositionId: 'd-group' });
const error: DeliveryError = {
  code: 4002,
  title: 'Not on the platform',
  message: 'The number has no chat account.',
  href: 'docs/chat-errors.md#4002',
  error_data: { details: 'No account for +919812345678' },
};

const requested: ChatEvent = { type: 'ChatRequested', data: { messageId: 'm1', at: t0, ...target } };
const dispatched: ChatEvent = { type: 'ChatDispatched', data: { messageId: 'm1', at: t0, provider: 'builtin' } };
/** What the dispatcher read of the blacklist: the number is not on it, at revision 2. */
const clear = { listed: false, revision: 2 };
const dispatchedAgainst = (event: ChatEvent): ChatEvent =>
  event.type === 'ChatDispatched' ? { ...event, data: { ...event.data, blacklistRevision: 2 } } : event;
const accepted: ChatEvent = { type: 'ChatAccepted', data: { messageId: 'm1', at: t0, platformMsgId: 'p-1' } };
const sent: ChatEvent = { type: 'ChatSent', data: { messageId: 'm1', at: t1 } };
const delivered: ChatEvent = { type: 'ChatDelivered', data: { messageId: 'm1', at: t2 } };
const read: ChatEvent = { type: 'ChatRead', data: { messageId: 'm1', at: t3 } };
const failed: ChatEvent = { type: 'ChatFailed', data: { messageId: 'm1', at: t2, errors: [error] } };
const endedFailed: ChatEvent = {
  type: 'ChatEnded',
  data: {
    messageId: 'm1',
    at: t2,
    status: 'Failed',
    reason: 'failed',
    disposition: null,
    summary: 'The message was not delivered: Not on the platform.',
  },
};
const reply: ChatEvent = {
  type: 'ChatMessageAdded',
  data: { messageId: 'm1', at: t3, entryId: 'p-1:1', role: 'user', content: 'I will pay on Friday.' },
};
const close: ChatCommand = {
  type: 'CloseChat',
  at: t4,
  reason: 'completed',
  disposition: { id: 'd1', name: 'Promise to pay' },
  summary: 'Promised to pay.',
};
const endedRead: ChatEvent = {
  type: 'ChatEnded',
  data: {
    messageId: 'm1',
    at: t4,
    status: 'Read',
    reason: 'completed',
    disposition: { id: 'd1', name: 'Promise to pay' },
    summary: 'Promised to pay.',
  },
};

const status = (
  s: ChatStatus,
  at: string,
  extra: Partial<Extract<ChatCommand, { type: 'RecordChatStatus' }>> = {},
): ChatCommand => ({ type: 'RecordChatStatus', status: s, at, ...extra });

describe('chat message', () => {
  it('is requested once; asking again for the same id by its organization sends nothing more', () => {
    spec
      .given([])
      .when({ type: 'RequestChat', messageId: 'm1', at: t0, ...target })
      .then([requested]);
    spec
      .given([requested])
      .when({ type: 'RequestChat', messageId: 'm1', at: t1, ...target })
      .then([]);
    spec
      .given([requested])
      .when({ type: 'RequestChat', messageId: 'm1', at: t1, ...target, organizationId: 'o2' })
      .thenFails('conflict', 'Chat message m1 already exists');
  });

  it('is handed to the platform once', () => {
    spec
      .given([requested])
      .when({ type: 'DispatchChat', provider: 'builtin', at: t0, blacklist: clear })
      .then([dispatchedAgainst(dispatched)]);
    spec
      .given([requested, dispatched])
      .when({ type: 'DispatchChat', provider: 'builtin', at: t1, blacklist: clear })
      .then([]);
  });

  it('is not sent when the blacklist it was dispatched against lists its number: it fails with 5003', () => {
    const blacklisted: DeliveryError = {
      code: 5003,
      title: 'Number is blacklisted',
      message: 'The recipient number was blacklisted before the message was sent; the message was not sent.',
      href: '/chat/v1/errors#5003',
      error_data: { details: `${target.to} was blacklisted before the message was sent.` },
    };
    spec
      .given([requested])
      .when({ type: 'DispatchChat', provider: 'builtin', at: t1, blacklist: { listed: true, revision: 5 } })
      .then([
        { type: 'ChatFailed', data: { messageId: 'm1', at: t1, errors: [blacklisted] } },
        {
          type: 'ChatEnded',
          data: {
            messageId: 'm1',
            at: t1,
            status: 'Failed',
            reason: 'failed',
            disposition: null,
            summary: 'The message was not delivered: Number is blacklisted.',
          },
        },
      ]);
  });

  it('records the replica that plays it when the dispatch names one; a dispatch recorded without one still folds', () => {
    spec
      .given([requested])
      .when({ type: 'DispatchChat', provider: 'builtin', at: t0, player: 'replica-a', blacklist: clear })
      .then([dispatchedAgainst({ ...dispatched, data: { ...dispatched.data, player: 'replica-a' } })]);
    expect([requested, dispatched].reduce(chatDecider.evolve, chatDecider.initialState())).toMatchObject({
      dispatchedBy: 'builtin',
      player: null,
    });
  });

  describe('adoption by another replica', () => {
    const played: ChatEvent = {
      type: 'ChatDispatched',
      data: { messageId: 'm1', at: t0, provider: 'builtin', player: 'a' },
    };
    const adopt = (player: string, from: string | null): ChatCommand => ({ type: 'AdoptChat', player, from, at: t4 });
    const adopted = (player: string, from: string | null): ChatEvent => ({
      type: 'ChatAdopted',
      data: { messageId: 'm1', at: t4, player, from },
    });

    it('takes the message from the player it names, while it is dispatched and not ended', () => {
      spec
        .given([requested, played])
        .when(adopt('b', 'a'))
        .then([adopted('b', 'a')]);
      spec
        .given([requested, played, accepted, sent, delivered])
        .when(adopt('b', 'a'))
        .then([adopted('b', 'a')]);
    });

    it('takes it once: a replica adopting from the former player after another adopted it gets nothing', () => {
      spec
        .given([requested, played, adopted('b', 'a')])
        .when(adopt('c', 'a'))
        .then([]);
      spec
        .given([requested, played, adopted('b', 'a')])
        .when(adopt('c', 'b'))
        .then([adopted('c', 'b')]);
    });

    it('takes a message dispatched before players were recorded from nobody (null)', () => {
      spec
        .given([requested, dispatched])
        .when(adopt('b', null))
        .then([adopted('b', null)]);
      spec.given([requested, dispatched]).when(adopt('b', 'a')).then([]);
      spec.given([requested, played]).when(adopt('b', null)).then([]);
    });

    it('yields nothing for a message not dispatched, ended, or adopted by its own player', () => {
      spec.given([requested]).when(adopt('b', null)).then([]);
      spec.given([requested, played, accepted, failed, endedFailed]).when(adopt('b', 'a')).then([]);
      spec.given([requested, played]).when(adopt('a', 'a')).then([]);
      spec.given([]).when(adopt('b', 'a')).thenFails('not_found', 'Chat message not found');
    });

    it('is not activity: the chat stays as quiet as it was', () => {
      const fold = (events: ChatEvent[]) => events.reduce(chatDecider.evolve, chatDecider.initialState());
      const before = fold([requested, played, accepted, sent]);
      const after = fold([requested, played, accepted, sent, adopted('b', 'a')]);
      expect(after).toEqual({ ...before, player: 'b' });
      // A close asking for quiet since before the adoption still closes it.
      spec
        .given([requested, played, accepted, sent, adopted('b', 'a')])
        .when({ ...close, quietSince: t2 })
        .then([{ type: 'ChatEnded', data: { ...endedRead.data, status: 'Sent' } }]);
    });
  });

  it('refuses reports for a message that was never requested', () => {
    spec.given([]).when(status('Sent', t1)).thenFails('not_found', 'Chat message not found');
  });

  it('moves Accepted (with the platform id), Sent, Delivered, Read', () => {
    spec
      .given([requested, dispatched])
      .when(status('Accepted', t0, { platformMsgId: 'p-1' }))
      .then([accepted]);
    spec.given([requested, dispatched, accepted]).when(status('Sent', t1)).then([sent]);
    spec.given([requested, dispatched, accepted, sent]).when(status('Delivered', t2)).then([delivered]);
    spec.given([requested, dispatched, accepted, sent, delivered]).when(status('Read', t3)).then([read]);
  });

  it('skips statuses it never heard of: Read straight after Accepted is taken', () => {
    spec.given([requested, accepted]).when(status('Read', t3)).then([read]);
  });

  it('takes the platform id from the first report that carries one, even one arriving before the acceptance', () => {
    spec
      .given([requested])
      .when(status('Sent', t1, { platformMsgId: 'p-1' }))
      .then([{ ...accepted, data: { ...accepted.data, at: t1 } }, sent]);
    spec
      .given([requested, accepted])
      .when(status('Accepted', t1, { platformMsgId: 'p-2' }))
      .then([]);
  });

  it('ignores a late Delivered after Read, a late Sent after Delivered, and repeated statuses', () => {
    const history = [requested, dispatched, accepted, sent, delivered, read];
    spec.given(history).when(status('Delivered', t2)).then([]);
    spec.given(history).when(status('Sent', t1)).then([]);
    spec.given(history).when(status('Read', t3)).then([]);
    spec.given([requested, accepted, sent, delivered]).when(status('Sent', t1)).then([]);
    spec.given([requested, accepted, sent, delivered]).when(status('Delivered', t2)).then([]);
  });

  it('fails only before it was delivered, and a failure ends the chat at once with its errors', () => {
    spec
      .given([requested, dispatched, accepted, sent])
      .when(status('Failed', t2, { errors: [error] }))
      .then([failed, endedFailed]);
    spec
      .given([requested, dispatched])
      .when(status('Failed', t2, { errors: [error] }))
      .then([failed, endedFailed]);
    // Delivered means the customer's device has it: a failure reported afterwards is ignored.
    spec
      .given([requested, accepted, sent, delivered])
      .when(status('Failed', t3, { errors: [error] }))
      .then([]);
    spec
      .given([requested, accepted, sent, delivered, read])
      .when(status('Failed', t3, { errors: [error] }))
      .then([]);
  });

  it('stays Failed: later statuses, messages and closings change nothing (it ended exactly once)', () => {
    const history = [requested, dispatched, accepted, failed, endedFailed];
    spec.given(history).when(status('Delivered', t3)).then([]);
    spec
      .given(history)
      .when(status('Failed', t3, { errors: [error] }))
      .then([]);
    spec.given(history).when({ type: 'RecordChatMessage', entryId: 'x', role: 'user', content: 'hi', at: t3 }).then([]);
    spec.given(history).when(close).then([]);
  });

  it('records conversation messages once each (a repeated webhook is ignored)', () => {
    const history = [requested, accepted, sent, delivered, read];
    const command: ChatCommand = {
      type: 'RecordChatMessage',
      entryId: 'p-1:1',
      role: 'user',
      content: 'I will pay on Friday.',
      at: t3,
    };
    spec.given(history).when(command).then([reply]);
    spec
      .given([...history, reply])
      .when(command)
      .then([]);
  });

  it('ends exactly once when the conversation is closed, with its current status and disposition', () => {
    const history = [requested, dispatched, accepted, sent, delivered, read, reply];
    spec.given(history).when(close).then([endedRead]);
    spec
      .given([...history, endedRead])
      .when(close)
      .then([]);
    spec
      .given([...history, endedRead])
      .when(status('Failed', t4))
      .then([]);
  });

  it('a message nobody read ends with the status it reached', () => {
    const history = [requested, dispatched, accepted, sent];
    spec
      .given(history)
      .when({ type: 'CloseChat', at: t4, reason: 'no_reply', disposition: null, summary: '' })
      .then([
        {
          type: 'ChatEnded',
          data: { messageId: 'm1', at: t4, status: 'Sent', reason: 'no_reply', disposition: null, summary: '' },
        },
      ]);
  });

  it('ignores reports after the end, whatever their order', () => {
    const history = [requested, accepted, sent, endedRead];
    spec.given(history).when(status('Read', t4)).then([]);
    spec.given(history).when({ type: 'DispatchChat', provider: 'builtin', at: t4, blacklist: clear }).then([]);
  });
});
