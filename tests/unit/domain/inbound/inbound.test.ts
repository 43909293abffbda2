/** Inbound routing of a number, and calls and chats that come in (docs/inbound.md). */
import { callDecider, type CallEvent, type CallTarget } from '../../../../domain/calls/call';
import { chatDecider, type ChatEvent, type ChatTarget } from '../../../../domain/chats/chat';
import { phoneNumberDecider, type PhoneNumberEvent } from '../../../../domain/numbers/owned-number';
import { specFor } from '../../../support/decider-spec';

const at = '2026-04-01T10:00:00.000Z';
const later = '2026-04-01T10:00:09.000Z';

describe('inbound routing of a number', () => {
  const spec = specFor(phoneNumberDecider);
  const purchased: PhoneNumberEvent = {
    type: 'NumberPurchased',
    data: {
      number: '+919812345678',
      country_iso: 'IN',
      sms_enabled: true,
      voice_enabled: true,
      provider: 'builtin',
      organizationId: 'o1',
      at,
    },
  };
  const set = { type: 'SetInboundRouting', organizationId: 'o1', at, agentId: 'a1', dispositionId: 'g1' } as const;
  const routed: PhoneNumberEvent = {
    type: 'InboundRoutingSet',
    data: { number: '+919812345678', organizationId: 'o1', agentId: 'a1', dispositionId: 'g1', at },
  };

  it('is set by the owner, once per change, with its own agent and disposition', () => {
    spec
      .given([purchased])
      .when({ ...set, agentKnown: true, dispositionKnown: true })
      .then([routed]);
    spec
      .given([purchased, routed])
      .when({ ...set, agentKnown: true, dispositionKnown: true })
      .then([]);
    spec
      .given([purchased])
      .when({ ...set, agentKnown: false, dispositionKnown: true })
      .thenFails('invalid', 'Agent not found');
    spec
      .given([purchased])
      .when({ ...set, agentKnown: true, dispositionKnown: false })
      .thenFails('invalid', 'Disposition not found');
  });

  it('is nobody else’s to set or clear: another organization’s number, or nobody’s, is not found', () => {
    spec
      .given([purchased])
      .when({ ...set, organizationId: 'o2', agentKnown: true, dispositionKnown: true })
      .thenFails('not_found', 'Number not found');
    spec
      .given([])
      .when({ type: 'ClearInboundRouting', organizationId: 'o1', at })
      .thenFails('not_found', 'Number not found');
  });

  it('is cleared once', () => {
    const cleared: PhoneNumberEvent = {
      type: 'InboundRoutingCleared',
      data: { number: '+919812345678', organizationId: 'o1', at },
    };
    spec.given([purchased, routed]).when({ type: 'ClearInboundRouting', organizationId: 'o1', at }).then([cleared]);
    spec.given([purchased, routed, cleared]).when({ type: 'ClearInboundRouting', organizationId: 'o1', at }).then([]);
  });
});

describe('an inbound call', () => {
  const spec = specFor(callDecider);
  const target: CallTarget = {
    organizationId: 'o1',
    campaignId: 'c1',
    campaignName: 'March EMI',
    customerKeyField: 'loan_id',
    customerKey: 'L-1',
    customerName: 'Asha Rao',
    to: '+918000000001',
    from: '+919812345678',
    agentId: 'a1',
    dispositionId: 'g1',
    language: 'en',
  };
  const receive = {
    type: 'ReceiveCall',
    callId: 'k1',
    at,
    provider: 'builtin',
    player: 'r1',
    ...target,
  } as const;
  const received: CallEvent = {
    type: 'CallReceived',
    data: {
      callId: 'k1',
      at,
      provider: 'builtin',
      player: 'r1',
      direction: 'inbound',
      blacklistRevision: 2,
      ...target,
    },
  };

  it('is recorded once, ringing in its provider’s hands', () => {
    spec
      .given([])
      .when({ ...receive, blacklist: { listed: false, revision: 2 } })
      .then([received]);
    spec
      .given([received])
      .when({ ...receive, blacklist: { listed: false, revision: 2 } })
      .then([]);
    const state = [received].reduce(callDecider.evolve, callDecider.initialState());
    expect(state).toMatchObject({ status: 'Ringing', direction: 'inbound', dialedBy: 'builtin', player: 'r1' });
  });

  it('of a blacklisted caller ends at once as Failed, reason blacklisted', () => {
    const events = callDecider.decide({ ...receive, blacklist: { listed: true, revision: 5 } }, { status: 'none' });
    expect(events.map((e) => e.type)).toEqual(['CallReceived', 'CallEnded']);
    expect(events[1]!.data).toMatchObject({ status: 'Failed', reason: 'blacklisted', durationSeconds: 0 });
  });

  it('goes on as a dialed call: answered, adopted from its player, ended once', () => {
    spec.given([received]).when({ type: 'RecordCallRinging', at: later }).then([]);
    spec
      .given([received])
      .when({ type: 'RecordCallAnswered', at: later })
      .then([{ type: 'CallAnswered', data: { callId: 'k1', at: later } }]);
    spec
      .given([received])
      .when({ type: 'AdoptCall', player: 'r2', from: 'r1', at: later })
      .then([{ type: 'CallAdopted', data: { callId: 'k1', player: 'r2', from: 'r1', at: later } }]);
    spec.given([received]).when({ type: 'AdoptCall', player: 'r2', from: 'r3', at: later }).then([]);
  });

  it('leaves calls recorded before directions outbound', () => {
    const queued: CallEvent = { type: 'CallQueued', data: { callId: 'k2', at, ...target } };
    expect([queued].reduce(callDecider.evolve, callDecider.initialState())).toMatchObject({ direction: 'outbound' });
  });
});

describe('an inbound chat', () => {
  const spec = specFor(chatDecider);
  const target: ChatTarget = {
    organizationId: 'o1',
    campaignId: '',
    campaignName: '',
    customerKeyField: 'lead_id',
    customerKey: '',
    customerName: '',
    to: '+918000000001',
    templateId: '',
    content: 'Hello, I have a question.',
    language: 'en',
    agentId: 'a1',
    dispositionId: 'd1',
  };
  const receive = {
    type: 'ReceiveChat',
    messageId: 'm1',
    at,
    from: '+919812345678',
    provider: 'builtin',
    player: 'r1',
    ...target,
  } as const;
  const received: ChatEvent = {
    type: 'ChatReceived',
    data: {
      messageId: 'm1',
      at,
      from: '+919812345678',
      provider: 'builtin',
      player: 'r1',
      direction: 'inbound',
      blacklistRevision: -1,
      ...target,
    },
  };

  it('is recorded once, delivered to us and in the platform’s hands; then read and answered', () => {
    spec
      .given([])
      .when({ ...receive, blacklist: { listed: false, revision: -1 } })
      .then([received]);
    spec
      .given([received])
      .when({ ...receive, blacklist: { listed: false, revision: -1 } })
      .then([]);
    const state = [received].reduce(chatDecider.evolve, chatDecider.initialState());
    expect(state).toMatchObject({ status: 'Delivered', direction: 'inbound', from: '+919812345678', player: 'r1' });
    spec
      .given([received])
      .when({ type: 'RecordChatStatus', status: 'Read', at: later })
      .then([{ type: 'ChatRead', data: { messageId: 'm1', at: later } }]);
  });

  it('of a blacklisted sender fails (5003) and ends at once', () => {
    const events = chatDecider.decide({ ...receive, blacklist: { listed: true, revision: 4 } }, { status: 'none' });
    expect(events.map((e) => e.type)).toEqual(['ChatReceived', 'ChatFailed', 'ChatEnded']);
    expect(events[1]!.data).toMatchObject({ errors: [expect.objectContaining({ code: 5003 })] });
    expect(events[2]!.data).toMatchObject({ status: 'Failed', reason: 'blacklisted' });
  });
});
