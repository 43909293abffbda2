import type { RecordedEvent } from '../../../application/ports/event-store';
import type { ChatEvent } from '../../../domain/chats/chat';
import { callLogsProjection } from '../../../projections/logs/call-logs';
import { chatLogsProjection, type ChatLogDocument } from '../../../projections/logs/chat-logs';
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
  events.reduce<ChatLogDocument | null>((doc, e) => chatLogsProjection.evolve('m1', doc, recorded(e)), null);

const at = '2026-03-01T09:59:58.000Z';
const requested: ChatEvent = {
  type: 'ChatRequested',
  data: {
    messageId: 'm1',
    at,
    organizationId: 'o1',
    campaignId: 'c1',
    campaignName: 'March EMI',
    customerKeyField: 'loan_id',
    customerKey: 'L-9',
    customerName: 'Ravi Kumar',
    to: '+919812345678',
    templateId: 'tpl-1',
    content: 'Hello Ravi',
    language: 'en',
    agentId: null,
    dispositionId: null,
  },
};
const error = {
  code: 4001,
  title: 'Invalid phone number',
  message: 'Not a number.',
  href: 'docs/chat-errors.md#4001',
  error_data: { details: 'bad' },
};

describe('chat logs projection', () => {
  it('writes into the same logs collection as calls', () => {
    expect(chatLogsProjection.collection).toEqual(callLogsProjection.collection);
    expect(chatLogsProjection.name).not.toBe(callLogsProjection.name);
  });

  it('builds an entry with the common fields of spec 2.3 (end_time null, duration 0) and the chat-only ones', () => {
    expect(fold([requested])).toEqual({
      id: 'm1',
      organizationId: 'o1',
      type: 'chat',
      date: '2026-03-01',
      loan_id: 'L-9',
      start_time: at,
      end_time: null,
      campaign_name: 'March EMI',
      campaign_id: 'c1',
      name: 'Ravi Kumar',
      duration: 0,
      direction: 'outbound',
      from: null,
      to: '+919812345678',
      status: 'Accepted',
      disposition: null,
      extracted_data: {},
      agent_id: '',
      disposition_id: null,
      summary: '',
      message_id: 'm1',
      platform_msg_id: '',
      conversation: [{ role: 'assistant', content: 'Hello Ravi', timestamp: at }],
      errors: [],
      template_id: 'tpl-1',
    });
  });

  it('follows the platform id, statuses, conversation, errors and the end', () => {
    const doc = fold([
      requested,
      { type: 'ChatAccepted', data: { messageId: 'm1', at, platformMsgId: 'p-1' } },
      { type: 'ChatSent', data: { messageId: 'm1', at } },
      { type: 'ChatDelivered', data: { messageId: 'm1', at } },
      { type: 'ChatRead', data: { messageId: 'm1', at } },
      {
        type: 'ChatMessageAdded',
        data: { messageId: 'm1', at: '2026-03-01T10:01:00.000Z', entryId: 'p-1:1', role: 'user', content: 'ok' },
      },
      {
        type: 'ChatEnded',
        data: {
          messageId: 'm1',
          at,
          status: 'Read',
          reason: 'completed',
          disposition: { id: 'd1', name: 'Promise to pay' },
          summary: 'Promised.',
        },
      },
    ])!;
    expect(doc).toMatchObject({
      platform_msg_id: 'p-1',
      status: 'Read',
      disposition: 'Promise to pay',
      disposition_id: 'd1',
      summary: 'Promised.',
      end_time: null,
      duration: 0,
    });
    expect(doc.conversation).toEqual([
      { role: 'assistant', content: 'Hello Ravi', timestamp: at },
      { role: 'user', content: 'ok', timestamp: '2026-03-01T10:01:00.000Z' },
    ]);
    const failed = fold([
      requested,
      { type: 'ChatFailed', data: { messageId: 'm1', at, errors: [error] } },
      {
        type: 'ChatEnded',
        data: { messageId: 'm1', at, status: 'Failed', reason: 'failed', disposition: null, summary: 'Not delivered.' },
      },
    ])!;
    expect(failed).toMatchObject({ status: 'Failed', errors: [error], disposition: null, disposition_id: null });
  });

  it('ignores handing the message to the platform (nothing an entry shows changes)', () => {
    expect(chatLogsProjection.eventTypes).not.toContain('ChatDispatched');
  });
});
