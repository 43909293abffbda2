/**
 * An erasure turns each read model's documents into exactly what a replay of the events builds once the
 * keys are gone (docs/privacy.md): the events are sealed and opened here as the event store does
 * (application/privacy/field-sealing.ts, domain/privacy/personal-fields.ts), with the erased keys missing.
 */
import { sealFields, unsealFields } from '../../../application/privacy/field-sealing';
import { ERASED } from '../../../domain/privacy/erased';
import type { ConversationContentErased, PersonalDataErased } from '../../../domain/privacy/erasure';
import { pathsOf, PERSONAL_FIELDS, type KeyKind } from '../../../domain/privacy/personal-fields';
import type { RecordedEvent } from '../../../domain/shared/recorded-event';
import { eventIndexId, eventIndexProjection } from '../../../projections/audit/event-index';
import { platformMessagesProjection } from '../../../projections/chats/platform-messages';
import { customersProjection } from '../../../projections/customers/customers';
import { callLogsProjection } from '../../../projections/logs/call-logs';
import { chatLogsProjection } from '../../../projections/logs/chat-logs';
import { subjectDocumentsProjection } from '../../../projections/privacy/subject-documents';
import type { AnyProjection } from '../../../projections/projection';
import { transcriptsProjection } from '../../../projections/transcripts/transcripts';
import { webhookDeliveriesProjection } from '../../../projections/webhooks/webhook-deliveries';
import { testMetadata } from '../../support/events';

const KEY = Buffer.alloc(32, 7);
const at = '2026-03-01T10:00:00.000Z';
const target = {
  organizationId: 'o1',
  campaignId: 'c1',
  campaignName: 'March EMI',
  customerKeyField: 'loan_id' as const,
  customerKey: 'LN-1',
  customerName: 'Zorawar Quixley',
};
type Event = { type: string; data: Record<string, unknown>; streamId: string; erased?: string[] };

const history: Event[] = [
  {
    type: 'CustomerAdded',
    streamId: 'customer-c1-LN-1',
    data: {
      campaignId: 'c1',
      customerId: 'LN-1',
      organizationId: 'o1',
      organizationType: 'collection',
      record: { loan_id: 'LN-1', first_name: 'Zorawar', phone_number: '+919876501234', loan_amount: 9000, note: 7 },
      at,
    },
  },
  {
    type: 'CustomerUpdated',
    streamId: 'customer-c1-LN-1',
    data: {
      campaignId: 'c1',
      customerId: 'LN-1',
      changes: { last_name: 'Quixley', note: null, payment_status: 'paid' },
      at,
    },
  },
  {
    type: 'CallQueued',
    streamId: 'call-k1',
    data: {
      callId: 'k1',
      at,
      ...target,
      to: '+919876501234',
      from: '+918000000001',
      agentId: 'a1',
      dispositionId: 'd1',
      language: 'en',
    },
  },
  { type: 'CallRinging', streamId: 'call-k1', data: { callId: 'k1', at } },
  {
    type: 'CallMediaAttached',
    streamId: 'call-k1',
    data: {
      callId: 'k1',
      at,
      transcript: [{ speaker: 'BOT', message: 'Hello Zorawar' }],
      transcriptId: 'k1-transcript',
    },
  },
  {
    type: 'CallEnded',
    streamId: 'call-k1',
    data: {
      callId: 'k1',
      at,
      status: 'Completed',
      reason: 'completed',
      durationSeconds: 30,
      disposition: { id: 'd1', name: 'Promise to pay' },
      summary: 'Zorawar will pay',
      extractedData: { amount: 9000 },
      transcript: [
        { speaker: 'BOT', message: 'Hello Zorawar' },
        { speaker: 'HUMAN', message: 'I will pay' },
      ],
      transcriptId: 't1',
      recordingId: 'r1',
    },
  },
  {
    type: 'CallReceived',
    streamId: 'call-k2',
    data: {
      callId: 'k2',
      at,
      ...target,
      customerName: '',
      direction: 'inbound',
      provider: 'builtin',
      blacklistRevision: -1,
      to: '+918000000001',
      from: '+919876501234',
      agentId: 'a1',
      dispositionId: 'd1',
      language: 'en',
    },
  },
  {
    type: 'ChatRequested',
    streamId: 'chat-m1',
    data: {
      messageId: 'm1',
      at,
      ...target,
      to: '+919876501234',
      templateId: 'tp',
      content: 'Hello Zorawar',
      language: 'en',
      agentId: 'a1',
      dispositionId: 'd1',
    },
  },
  { type: 'ChatDispatched', streamId: 'chat-m1', data: { messageId: 'm1', at, provider: 'builtin' } },
  {
    type: 'ChatMessageAdded',
    streamId: 'chat-m1',
    data: { messageId: 'm1', at, entryId: 'x1', role: 'user', content: 'Call me at 98765' },
  },
  {
    type: 'ChatRequested',
    streamId: 'chat-m2',
    data: {
      messageId: 'm2',
      at,
      ...target,
      to: '+919876501234',
      templateId: 'tp',
      content: 'Hi again',
      language: 'en',
      agentId: null,
      dispositionId: null,
    },
  },
  {
    type: 'ChatEnded',
    streamId: 'chat-m2',
    data: { messageId: 'm2', at, status: 'Read', reason: 'completed', disposition: null, summary: 'Read it' },
  },
  {
    type: 'ChatRequested',
    streamId: 'chat-m3',
    data: {
      messageId: 'm3',
      at,
      ...target,
      to: '+919876501234',
      templateId: 'tp',
      content: 'Hello once more',
      language: 'en',
      agentId: null,
      dispositionId: null,
    },
  },
  {
    type: 'ChatFailed',
    streamId: 'chat-m3',
    data: {
      messageId: 'm3',
      at,
      errors: [
        {
          code: 4002,
          title: 'Recipient not on the chat platform',
          message: 'The recipient number has no account on the chat platform.',
          href: '/chat/v1/errors#4002',
          error_data: { details: 'No chat account is registered for +919876501234.' },
        },
        { code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', href: 'https://x' },
      ],
    },
  },
  {
    type: 'ChatEnded',
    streamId: 'chat-m3',
    data: {
      messageId: 'm3',
      at,
      status: 'Failed',
      reason: 'failed',
      disposition: null,
      summary: 'The message was not delivered: Recipient not on the chat platform.',
    },
  },
  {
    type: 'WebhookDeliveryScheduled',
    streamId: 'webhookDelivery-w1',
    data: {
      deliveryId: 'w1',
      organizationId: 'o1',
      event: 'call.ended',
      subject: { type: 'call', id: 'k1' },
      sourceEventId: 'e5',
      url: 'https://example.com/hook',
      body: '{"name":"Zorawar Quixley"}',
      at,
    },
  },
];

/** The audit index entries of the events with personal fields (the index is keyed by position). */
const auditPositions = history.flatMap((e, position) => (PERSONAL_FIELDS[e.type] ? [position] : []));

const erasure: PersonalDataErased = {
  type: 'PersonalDataErased',
  data: {
    organizationId: 'o1',
    subjectIds: ['s1'],
    lookup: 'phone',
    customers: [{ campaignId: 'c1', customerKey: 'LN-1' }],
    calls: ['k1', 'k2'],
    chats: ['m1', 'm2', 'm3'],
    recordingIds: ['r1'],
    transcriptIds: ['t1', 'k1-transcript'],
    auditPositions,
    webhookDeliveries: ['w1'],
    kept: [],
    at,
  },
};
const contentErasure: ConversationContentErased = {
  type: 'ConversationContentErased',
  data: {
    organizationId: 'o1',
    calls: ['k1', 'k2'],
    chats: ['m1', 'm2', 'm3'],
    recordingIds: ['r1'],
    transcriptIds: ['t1', 'k1-transcript'],
    auditPositions,
    reason: 'retention',
    at,
  },
};

/** The event as the store reads it back once the keys of `erased` are gone (none: as it was). */
function readBack(event: Event, erased: ReadonlySet<KeyKind>): Event {
  const rule = PERSONAL_FIELDS[event.type];
  if (!rule) return event;
  const groups = rule.groups
    .map((g) => ({ keyId: g.key, key: erased.has(g.key) ? null : KEY, fields: pathsOf(g, event.data) }))
    .filter((g) => g.fields.length > 0);
  const sealed = sealFields(event.type, event.data, groups);
  const opened = unsealFields(event.type, sealed, (keyId) => (erased.has(keyId as KeyKind) ? null : KEY));
  return { ...event, data: opened.data, ...(opened.erased.length > 0 && { erased: opened.erased }) };
}

function recorded(events: readonly (Event | (PersonalDataErased | ConversationContentErased))[]): RecordedEvent[] {
  return events.map((e, position) => ({
    type: e.type,
    data: e.data,
    id: `e${position}`,
    streamId: 'streamId' in e ? e.streamId : 'privacy-o1',
    revision: position,
    position,
    recordedAt: at,
    metadata: {
      ...testMetadata({ organizationId: 'o1' }),
      ...(PERSONAL_FIELDS[e.type] && { subject: 's1' }),
      ...('erased' in e && e.erased && { erased: e.erased }),
    },
  }));
}

/** Every document a projection builds of the events, by id. */
function build(projection: AnyProjection, events: readonly RecordedEvent[]): Record<string, unknown> {
  const docs: Record<string, unknown> = {};
  const types = projection.eventTypes === 'all' ? null : new Set(projection.eventTypes);
  for (const event of events) {
    if (types && !types.has(event.type)) continue;
    for (const id of projection.documentIds(event)) docs[id] = projection.evolve(id, docs[id] ?? null, event);
  }
  return docs;
}

const PROJECTIONS = [
  customersProjection,
  callLogsProjection,
  chatLogsProjection,
  transcriptsProjection,
  platformMessagesProjection,
  webhookDeliveriesProjection,
  subjectDocumentsProjection,
  eventIndexProjection,
];

describe.each(PROJECTIONS.map((p) => [p.name, p] as const))('%s after an erasure', (_name, projection) => {
  it("equals a replay of the events read without the subject's keys", () => {
    const live = build(projection, recorded([...history, erasure]));
    const replay = build(
      projection,
      recorded([...history.map((e) => readBack(e, new Set(['subject', 'content']))), erasure]),
    );
    expect(live).toEqual(replay);
    // Applied twice, it changes nothing more (the audit indexes the second erasure as an event of its own).
    const { [eventIndexId(history.length + 1)]: _again, ...twice } = build(
      projection,
      recorded([...history, erasure, erasure]),
    );
    expect(twice).toEqual(live);
  });

  it("equals a replay of the events read without the conversations' content keys, after retention", () => {
    const live = build(projection, recorded([...history, contentErasure]));
    const replay = build(
      projection,
      recorded([...history.map((e) => readBack(e, new Set(['content']))), contentErasure]),
    );
    expect(live).toEqual(replay);
  });
});

describe('erased documents', () => {
  it('hold no name, number or message any more, and keep the clear fields', () => {
    const docs = PROJECTIONS.map((p) => build(p, recorded([...history, erasure])));
    const text = JSON.stringify(docs);
    for (const trace of ['Zorawar', 'Quixley', '9876501234', 'I will pay', '98765'])
      expect({ trace, found: text.includes(trace) }).toEqual({ trace, found: false });
    const [customers] = docs;
    expect(customers!['c1/LN-1']).toMatchObject({
      phone_number: ERASED,
      data: { loan_id: 'LN-1', loan_amount: 9000, payment_status: 'paid', first_name: ERASED, last_name: ERASED },
    });
    // A delivery error keeps what it was; only its details, which named the number, are gone.
    const chats = build(chatLogsProjection, recorded([...history, erasure]));
    expect((chats.m3 as { errors: unknown[] }).errors).toEqual([
      {
        code: 4002,
        title: 'Recipient not on the chat platform',
        message: 'The recipient number has no account on the chat platform.',
        href: '/chat/v1/errors#4002',
        error_data: { details: ERASED },
      },
      {
        code: 131026,
        title: 'Message undeliverable',
        message: 'Message undeliverable',
        href: 'https://x',
        error_data: { details: ERASED },
      },
    ]);
  });

  it("leave another organization's documents alone", () => {
    const foreign = { ...erasure, data: { ...erasure.data, organizationId: 'o2' } };
    const own = eventIndexId(history.length);
    for (const projection of PROJECTIONS) {
      const { [own]: _erasure, ...docs } = build(projection, recorded([...history, foreign]));
      expect(docs).toEqual(build(projection, recorded(history)));
    }
  });
});
