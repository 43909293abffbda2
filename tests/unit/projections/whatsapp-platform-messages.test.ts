/**
 * The platform messages read model, by which WhatsApp's webhooks find our messages: an open chat with
 * its platform, its platform id and its customer's number (digits), most recent activity kept; gone
 * once the chat ends.
 */
import type { RecordedEvent } from '../../../application/ports/event-store';
import type { ChatEvent } from '../../../domain/chats/chat';
import { platformMessagesProjection, type PlatformMessageDocument } from '../../../projections/chats/platform-messages';
import { chatTarget } from '../../support/chats';
import { testMetadata } from '../../support/events';

let position = 0;
const recorded = (event: ChatEvent): RecordedEvent => ({
  ...event,
  id: `e${position}`,
  streamId: 'chat-m1',
  revision: position,
  position: position++,
  recordedAt: '',
  metadata: testMetadata(),
});
const fold = (events: ChatEvent[]) =>
  events.reduce<PlatformMessageDocument | null>(
    (doc, e) => platformMessagesProjection.evolve('m1', doc, recorded(e)),
    null,
  );

const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
const requested: ChatEvent = { type: 'ChatRequested', data: { messageId: 'm1', at: at(0), ...chatTarget() } };
const dispatched: ChatEvent = { type: 'ChatDispatched', data: { messageId: 'm1', at: at(1), provider: 'whatsapp' } };
const accepted: ChatEvent = { type: 'ChatAccepted', data: { messageId: 'm1', at: at(2), platformMsgId: 'wamid.A' } };

describe('platform messages read model', () => {
  it('keeps a sent message with its platform, its platform id and its recipient, digits only', () => {
    expect(fold([requested, dispatched, accepted])).toEqual({
      id: 'm1',
      organizationId: 'o1',
      provider: 'whatsapp',
      platformMsgId: 'wamid.A',
      customer: '919812345678',
      lastActivityAt: at(2),
    });
  });

  it('keeps a chat a customer opened under the sender', () => {
    const received: ChatEvent = {
      type: 'ChatReceived',
      data: {
        messageId: 'm1',
        at: at(0),
        ...chatTarget({ to: '+15550783881' }),
        direction: 'inbound',
        from: '+1 (415) 555-0100',
        provider: 'whatsapp',
        blacklistRevision: -1,
      },
    };
    expect(fold([received])).toMatchObject({ provider: 'whatsapp', customer: '14155550100', platformMsgId: '' });
  });

  it('moves the last activity forward only, and forgets the chat once it ends', () => {
    const late: ChatEvent = { type: 'ChatSent', data: { messageId: 'm1', at: at(1) } };
    const reply: ChatEvent = {
      type: 'ChatMessageAdded',
      data: { messageId: 'm1', at: at(30), entryId: 'wamid.R', role: 'user', content: 'Yes' },
    };
    expect(fold([requested, dispatched, accepted, reply, late])?.lastActivityAt).toBe(at(30));
    const ended: ChatEvent = {
      type: 'ChatEnded',
      data: { messageId: 'm1', at: at(40), status: 'Read', reason: 'inactive', disposition: null, summary: '' },
    };
    expect(fold([requested, dispatched, accepted, ended])).toBeNull();
    expect(fold([requested, dispatched, accepted, ended, reply])).toBeNull();
  });
});
