/**
 * Choosing the provider of each call and chat: a call is dialed by the provider of the number it is
 * placed from (an imported Twilio number by `twilio`, a built-in number by the built-in carrier), and
 * `CallDialed` names it; a provider this process has none of fails the call. A chat goes through its
 * organization's platform. The stores are the memory adapters; the providers and platforms are doubles
 * of their ports, recording what they were handed.
 */
import { callDispatcher } from '../../../application/calls/call-dispatcher';
import { CarrierReports } from '../../../application/calls/carrier-reports';
import { chatDispatcher } from '../../../application/chats/chat-dispatcher';
import { ChatPlatformReports } from '../../../application/chats/chat-platform-reports';
import { chatStreamId } from '../../../application/chats/chat-sending';
import { CommandHandler } from '../../../application/command-handler';
import type { ChatPlatform, ChatSendRequest } from '../../../application/ports/chat-platform';
import type { DialRequest, TelephonyProvider } from '../../../application/ports/telephony';
import { callDecider, callStreamId } from '../../../domain/calls/call';
import { chatDecider } from '../../../domain/chats/chat';
import { phoneNumberDecider, phoneNumberStreamId } from '../../../domain/numbers/owned-number';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { chatTarget } from '../../support/chats';

const at = '2026-03-01T10:00:00.000Z';
const context = { organizationId: 'o1', actor: 'test', requestId: 'r1' };
const TWILIO_NUMBER = '+14155550123';
const BUILTIN_NUMBER = '+918000000001';

function telephony(alias: string): TelephonyProvider & { dialed: DialRequest[] } {
  const dialed: DialRequest[] = [];
  return { alias, dialed, dial: async (request) => void dialed.push(request) };
}

async function callScenario(from: string, adapters: string[]) {
  const events = new MemoryEventStore();
  const commands = new CommandHandler(events);
  await commands.handle(
    phoneNumberDecider,
    phoneNumberStreamId(TWILIO_NUMBER),
    {
      type: 'ImportNumber',
      provider: 'twilio',
      number: TWILIO_NUMBER,
      country_iso: 'US',
      sms_enabled: true,
      voice_enabled: true,
      organizationId: 'o1',
      providerConnected: true,
      refusal: null,
      stockedBy: null,
      at,
    },
    context,
  );
  await commands.handle(
    callDecider,
    callStreamId('c1'),
    {
      type: 'RequestCall',
      callId: 'c1',
      at,
      organizationId: 'o1',
      campaignId: 'k1',
      campaignName: 'Run',
      customerKeyField: 'loan_id',
      customerKey: 'L1',
      customerName: 'Asha',
      to: '+919800000001',
      from,
      agentId: 'a1',
      dispositionId: 'd1',
      language: 'en',
    },
    context,
  );
  const builtin = telephony('builtin');
  const others = new Map(adapters.map((alias) => [alias, telephony(alias)]));
  const dispatcher = callDispatcher({
    commands,
    provider: builtin,
    routing: {
      byAlias: (alias) => others.get(alias),
      // The provider the number's own stream records (the numbers read model answers the same in the service).
      numberProvider: async (org, number) => {
        const { state } = await commands.load(phoneNumberDecider, phoneNumberStreamId(number));
        return state.status === 'owned' && state.organizationId === org ? state.provider : null;
      },
    },
    reports: new CarrierReports(commands),
    lookups: {
      organizationType: async () => 'collection',
      customer: async () => ({ loan_id: 'L1' }),
      agent: async () => ({ name: 'Asha', voiceId: 'v' }),
      dispositions: async () => [{ id: 'd1', name: 'Paid' }],
    },
    now: () => new Date(at),
    player: 'replica-a',
  });
  const [queued] = await events.readStream(callStreamId('c1'));
  await dispatcher.handle(queued!);
  const history = await events.readStream(callStreamId('c1'));
  return { builtin, others, history };
}

describe('the provider of a call', () => {
  it('is the provider of its number: an imported Twilio number is dialed by the twilio adapter', async () => {
    const { builtin, others, history } = await callScenario(TWILIO_NUMBER, ['twilio']);
    expect(builtin.dialed).toEqual([]);
    expect(others.get('twilio')!.dialed.map((r) => [r.callId, r.from])).toEqual([['c1', TWILIO_NUMBER]]);
    expect(history.find((e) => e.type === 'CallDialed')?.data).toMatchObject({ provider: 'twilio' });
  });

  it('is the built-in carrier for a number the organization does not hold at a provider', async () => {
    const { builtin, others, history } = await callScenario(BUILTIN_NUMBER, ['twilio']);
    expect(builtin.dialed.map((r) => r.callId)).toEqual(['c1']);
    expect(others.get('twilio')!.dialed).toEqual([]);
    expect(history.find((e) => e.type === 'CallDialed')?.data).toMatchObject({ provider: 'builtin' });
  });

  it('ends the call as Failed, dialing nothing, when this process has no adapter of that provider', async () => {
    const { builtin, history } = await callScenario(TWILIO_NUMBER, []);
    expect(builtin.dialed).toEqual([]);
    expect(history.map((e) => e.type)).toEqual(['CallQueued', 'CallEnded']);
    expect(history[1]!.data).toMatchObject({
      status: 'Failed',
      reason: 'provider_unavailable',
      summary: "The call was not placed: its number's provider twilio is not available.",
    });
  });
});

function platform(alias: string): ChatPlatform & { sent: ChatSendRequest[] } {
  const sent: ChatSendRequest[] = [];
  return {
    alias,
    sent,
    send: async (request) => {
      sent.push(request);
      return { platformMsgId: `${alias}-${sent.length}` };
    },
  };
}

describe('the platform of a chat', () => {
  it("is the organization's: WhatsApp for one that connected it, the built-in one for the others", async () => {
    const events = new MemoryEventStore();
    const commands = new CommandHandler(events);
    const builtin = platform('builtin');
    const whatsapp = platform('whatsapp');
    const dispatcher = chatDispatcher({
      commands,
      platform: builtin,
      routing: {
        byAlias: (alias) => (alias === 'whatsapp' ? whatsapp : undefined),
        platformOf: async (org) => (org === 'with-whatsapp' ? 'whatsapp' : 'builtin'),
      },
      reports: new ChatPlatformReports(commands),
      lookups: {
        organizationType: async () => 'collection',
        customer: async () => ({ loan_id: 'L-1' }),
        agent: async () => null,
        dispositions: async () => [],
      },
      now: () => new Date(at),
      player: 'replica-a',
    });
    for (const [messageId, organizationId] of [
      ['m1', 'with-whatsapp'],
      ['m2', 'without'],
    ] as const) {
      await commands.handle(
        chatDecider,
        chatStreamId(messageId),
        { type: 'RequestChat', messageId, at, ...chatTarget({ organizationId }) },
        { ...context, organizationId },
      );
      const [requested] = await events.readStream(chatStreamId(messageId));
      await dispatcher.handle(requested!);
    }
    expect(whatsapp.sent.map((r) => r.messageId)).toEqual(['m1']);
    expect(builtin.sent.map((r) => r.messageId)).toEqual(['m2']);
    const dispatched = async (id: string) =>
      (await events.readStream(chatStreamId(id))).find((e) => e.type === 'ChatDispatched')?.data;
    expect(await dispatched('m1')).toMatchObject({ provider: 'whatsapp' });
    expect(await dispatched('m2')).toMatchObject({ provider: 'builtin' });
  });
});
