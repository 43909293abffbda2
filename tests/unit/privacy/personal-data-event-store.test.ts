/**
 * The event store with personal data sealed, over the memory event store and the key store in a memory
 * read store: what the log holds, what readers get, who each event is about, and what an erasure does.
 */
import crypto from 'node:crypto';
import type { EventData, EventStore, ReadAllOptions, RecordedEvent } from '../../../application/ports/event-store';
import { SealedFieldsTamperedError, type SealedGroup } from '../../../application/privacy/field-sealing';
import { PersonalDataEventStore } from '../../../application/privacy/personal-data-event-store';
import { ReadStoreKeys } from '../../../application/privacy/read-store-keys';
import { nodeAesGcm } from '../../../application/privacy/aes-gcm';
import { opensslAesGcm } from '../../../infrastructure/crypto/openssl-aes-gcm';
import { ERASED } from '../../../domain/privacy/erased';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { testMetadata } from '../../support/events';

const ORG = 'org-1';
const event = (type: string, data: Record<string, unknown>, id = `${type}-${Math.random()}`): EventData => ({
  id,
  type,
  data,
  metadata: testMetadata({ organizationId: ORG }),
});

const target = {
  organizationId: ORG,
  campaignId: 'k1',
  campaignName: 'Spring',
  customerKeyField: 'loan_id',
  customerKey: 'L1',
  customerName: 'Asha Patil',
  to: '+91 98123 45678',
  from: '+911140000000',
  agentId: 'a1',
  dispositionId: 'd1',
  language: 'english',
};
const queued = (callId: string, to = target.to) =>
  event('CallQueued', { callId, at: '2026-03-01T10:00:00.000Z', ...target, to });
const ended = (callId: string) =>
  event('CallEnded', {
    callId,
    at: '2026-03-01T10:05:00.000Z',
    status: 'Completed',
    reason: 'completed',
    durationSeconds: 42,
    disposition: { id: 'd1', name: 'Promise to pay' },
    summary: 'Asha promised to pay on Friday.',
    extractedData: { promiseDate: '2026-03-06' },
    transcript: [
      { speaker: 'BOT', message: 'Namaste Asha' },
      { speaker: 'HUMAN', message: 'I will pay on Friday' },
    ],
    transcriptId: null,
    recordingId: null,
  });
const customerAdded = () =>
  event('CustomerAdded', {
    campaignId: 'k1',
    customerId: 'L1',
    organizationId: ORG,
    organizationType: 'collection',
    record: { loan_id: 'L1', first_name: 'Asha', last_name: 'Patil', phone_number: '+919812345678', loan_amount: 1 },
    at: '2026-03-01T09:00:00.000Z',
  });

describe('the event store with personal data sealed', () => {
  let raw: MemoryEventStore;
  let reads: MemoryReadStore;
  let keys: ReadStoreKeys;
  let events: EventStore;
  beforeEach(async () => {
    raw = new MemoryEventStore();
    reads = new MemoryReadStore();
    keys = await ReadStoreKeys.open(reads);
    events = new PersonalDataEventStore(raw, keys);
  });

  const rawText = async () => JSON.stringify(await raw.readAll({}));

  it('stores no name, number or conversation, and reads every event back as it was appended', async () => {
    const appended = [queued('c1'), ended('c1')];
    await events.appendToStream('call-c1', [appended[0]!]);
    await events.appendToStream('call-c1', [appended[1]!]);
    const text = await rawText();
    for (const secret of ['Asha', '98123', 'Friday', 'promiseDate']) expect(text).not.toContain(secret);
    expect(text).toContain('Promise to pay'); // what is not personal stays in the clear

    const read = await events.readStream('call-c1');
    expect(read.map((e) => e.data)).toEqual(appended.map((e) => e.data));
    expect(read.map((e) => e.metadata.erased)).toEqual([undefined, undefined]);
  });

  it("opens what a process sealing through another AES-256-GCM wrote, both ways (the process's OpenSSL, node:crypto)", async () => {
    const openssl = opensslAesGcm();
    if (!openssl) throw new Error('the OpenSSL of the process is not available here');
    for (const [sealing, opening] of [
      [openssl, nodeAesGcm],
      [nodeAesGcm, openssl],
    ] as const) {
      const log = new MemoryEventStore();
      const writer = new PersonalDataEventStore(log, keys, { seal: true, cipher: sealing });
      const appended = [customerAdded(), queued('c1'), ended('c1')];
      await writer.appendToStream('customer-k1-L1', [appended[0]!]);
      await writer.appendToStream('call-c1', appended.slice(1));
      expect(JSON.stringify(await log.readAll({}))).not.toContain('Asha');
      // Another process (its own window of opened events): deciphers every event.
      const reader = new PersonalDataEventStore(log, keys, { seal: true, cipher: opening });
      expect((await reader.readAll({})).map((e) => e.data)).toEqual(appended.map((e) => e.data));
    }
  });

  it("names the subject of every event: one per number, whatever its format, and a later event's from its stream", async () => {
    await events.appendToStream('customer-k1-L1', [customerAdded()]);
    await events.appendToStream('call-c1', [queued('c1')]);
    await events.appendToStream('call-c1', [ended('c1')]);
    await events.appendToStream('call-c2', [queued('c2', '+910000000001')]);
    const [customer] = await events.readStream('customer-k1-L1');
    const call = await events.readStream('call-c1');
    const [other] = await events.readStream('call-c2');
    const subject = customer!.metadata.subject;
    expect(subject).toEqual(expect.any(String));
    expect(call.map((e) => e.metadata.subject)).toEqual([subject, subject]);
    expect(other!.metadata.subject).not.toBe(subject);
    expect(await keys.subjectOfPhone(ORG, '919812345678')).toBe(subject);
  });

  it('finds the subject of a stream it has not seen from its first event (another process, a restart)', async () => {
    await events.appendToStream('call-c1', [queued('c1')]);
    const restarted = new PersonalDataEventStore(raw, await ReadStoreKeys.open(reads));
    await restarted.appendToStream('call-c1', [ended('c1')]);
    const call = await events.readStream('call-c1');
    expect(call[1]!.metadata.subject).toBe(call[0]!.metadata.subject);
    expect(call[1]!.data).toEqual(ended('c1').data);
  });

  it('seals a webhook body for the subject of the call it is about', async () => {
    await events.appendToStream('call-c1', [queued('c1')]);
    await events.appendToStream('webhookDelivery-w1', [
      event('WebhookDeliveryScheduled', {
        deliveryId: 'w1',
        organizationId: ORG,
        event: 'call.ended',
        subject: { type: 'call', id: 'c1' },
        sourceEventId: 'e1',
        url: 'https://example.com/hook',
        body: '{"name":"Asha Patil","to":"+919812345678"}',
        at: '2026-03-01T10:06:00.000Z',
      }),
    ]);
    expect(await rawText()).not.toContain('Asha');
    const [call] = await events.readStream('call-c1');
    const [delivery] = await events.readStream('webhookDelivery-w1');
    expect(delivery!.metadata.subject).toBe(call!.metadata.subject);
    expect((delivery!.data as { body: string }).body).toContain('Asha Patil');
  });

  it('reads placeholders once a subject is erased, and which fields they are', async () => {
    await events.appendToStream('call-c1', [queued('c1'), ended('c1')]);
    const subject = (await events.readStream('call-c1'))[0]!.metadata.subject!;
    await keys.eraseSubjects([subject]);
    const [q, e] = await events.readStream('call-c1');
    expect(q!.data).toMatchObject({ customerName: ERASED, to: ERASED, from: target.from, campaignName: 'Spring' });
    expect(q!.metadata).toMatchObject({ subject, erased: ['customerName', 'to'] });
    expect(e!.data).toMatchObject({
      summary: ERASED,
      extractedData: {},
      transcript: [
        { speaker: 'BOT', message: ERASED },
        { speaker: 'HUMAN', message: ERASED },
      ],
      durationSeconds: 42,
    });
    expect(e!.metadata.erased).toEqual(['transcript', 'summary', 'extractedData']);
  });

  it("erases a conversation's content alone, keeping who it was with", async () => {
    await events.appendToStream('call-c1', [queued('c1'), ended('c1')]);
    await keys.eraseContent(['call-c1']);
    const [q, e] = await events.readStream('call-c1');
    expect(q!.data).toMatchObject({ customerName: 'Asha Patil' });
    expect(q!.metadata.erased).toBeUndefined();
    expect(e!.data).toMatchObject({ summary: ERASED });
  });

  it('writes what arrives for a subject already erased as erased, never in the clear', async () => {
    await events.appendToStream('call-c1', [queued('c1')]);
    await keys.eraseSubjects([(await events.readStream('call-c1'))[0]!.metadata.subject!]);
    await events.appendToStream('call-c1', [ended('c1')]);
    expect(await rawText()).not.toContain('Friday');
    const [, e] = await events.readStream('call-c1');
    expect(e!.data).toMatchObject({ summary: ERASED });
  });

  it('a number seen again after its subject was erased is a new subject', async () => {
    await events.appendToStream('call-c1', [queued('c1')]);
    const first = (await events.readStream('call-c1'))[0]!.metadata.subject!;
    await keys.eraseSubjects([first]);
    await events.appendToStream('call-c2', [queued('c2')]);
    const [again] = await events.readStream('call-c2');
    expect(again!.metadata.subject).not.toBe(first);
    expect(again!.data).toMatchObject({ customerName: 'Asha Patil' });
  });

  it('gives a caller with no number a subject of that call alone', async () => {
    await events.appendToStream('call-c1', [queued('c1', '')]);
    await events.appendToStream('call-c2', [queued('c2', '')]);
    const [a] = await events.readStream('call-c1');
    const [b] = await events.readStream('call-c2');
    expect(a!.data).toMatchObject({ customerName: 'Asha Patil', to: '' });
    expect(a!.metadata.subject).not.toBe(b!.metadata.subject);
  });

  it('reads events written before sealing as they are, and never stores what reads add to the metadata', async () => {
    const old = queued('c0');
    await raw.appendToStream('call-c0', [old]);
    const [read] = await events.readStream('call-c0');
    expect(read!.data).toEqual(old.data);
    expect(read!.metadata.subject).toBeUndefined();

    await events.appendToStream('call-c1', [queued('c1')]);
    const [sealed] = await events.readStream('call-c1');
    expect(sealed!.metadata.subject).toEqual(expect.any(String));
    await events.appendToStream('call-c3', [{ ...queued('c3'), metadata: sealed!.metadata }]);
    const [stored] = await raw.readStream('call-c3');
    expect(stored!.metadata).not.toHaveProperty('subject');
  });

  it('keeps the events it opened for the next reader, or none when told to keep none (the admin command)', async () => {
    await events.appendToStream('call-c1', [queued('c1'), ended('c1')]);
    const decipher = jest.spyOn(crypto, 'createDecipheriv');
    try {
      const deciphered = async (reader: EventStore) => {
        decipher.mockClear();
        const first = await reader.readAll({});
        const second = await reader.readAll({});
        expect(second.map((e) => e.data)).toEqual(first.map((e) => e.data));
        expect(first.map((e) => e.data)).toEqual([queued('c1').data, ended('c1').data]);
        return decipher.mock.calls.length;
      };
      // Other processes' readers (a replica's, the admin command's): each opens what it reads.
      const keeping = await deciphered(new PersonalDataEventStore(raw, keys));
      const keepingNone = await deciphered(new PersonalDataEventStore(raw, keys, { seal: true, keepOpened: 0 }));
      expect(keeping).toBeGreaterThan(0);
      expect(keepingNone).toBe(2 * keeping);
    } finally {
      decipher.mockRestore();
    }
  });

  it('stores new events in the clear when sealing is off, and still reads what was sealed', async () => {
    await events.appendToStream('call-c1', [queued('c1')]);
    const clear = new PersonalDataEventStore(raw, keys, { seal: false });
    await clear.appendToStream('call-c2', [queued('c2')]);
    expect(JSON.stringify(await raw.readStream('call-c2'))).toContain('Asha');
    expect((await clear.readStream('call-c1'))[0]!.data).toEqual(queued('c1').data);
  });

  describe('events this process sealed, read back', () => {
    /** The memory store, but read as the very events it was given, as a store keeping them in memory reads. */
    class KeepingStore extends MemoryEventStore {
      private readonly kept: RecordedEvent[] = [];
      override async appendToStream(streamId: string, appended: readonly EventData[]) {
        const result = await super.appendToStream(streamId, appended);
        const first = result.position - appended.length + 1;
        appended.forEach((e, i) =>
          this.kept.push({
            ...e,
            streamId,
            revision: i,
            position: first + i,
            recordedAt: '2026-03-01T10:00:00.000Z',
          }),
        );
        return result;
      }
      override async readAll(options: ReadAllOptions = {}) {
        return this.kept.slice((options.after ?? -1) + 1);
      }
    }

    it('read as deciphering them answers, without the clear data ever being stored', async () => {
      await events.appendToStream('call-c1', [queued('c1'), ended('c1')]);
      const elsewhere = new PersonalDataEventStore(raw, await ReadStoreKeys.open(reads));
      const here = await events.readStream('call-c1');
      expect(here).toEqual(await elsewhere.readStream('call-c1'));
      expect(here.map((e) => e.data)).toEqual([queued('c1').data, ended('c1').data]);
      expect(await rawText()).not.toContain('Asha');
    });

    it('read field for field, in the same order, as another process deciphers them (read models built anywhere are equal)', async () => {
      const kept = new KeepingStore();
      const here = new PersonalDataEventStore(kept, keys);
      await here.appendToStream('customer-k1-L1', [customerAdded()]);
      await here.appendToStream('call-c1', [queued('c1'), ended('c1')]);
      // Another process reads copies of what the log holds, and deciphers them.
      const copies = new MemoryEventStore();
      for (const e of await kept.readAll({}))
        await copies.appendToStream(e.streamId, [{ id: e.id, type: e.type, data: e.data, metadata: e.metadata }]);
      const elsewhere = new PersonalDataEventStore(copies, await ReadStoreKeys.open(reads));
      const text = async (store: EventStore) =>
        JSON.stringify((await store.readAll({})).map((e) => [e.data, e.metadata]));
      const decipher = jest.spyOn(crypto, 'createDecipheriv');
      const readHere = await text(here);
      // Handed back the very events it sealed, it knows what they hold without deciphering them.
      expect(decipher).not.toHaveBeenCalled();
      expect(readHere).toBe(await text(elsewhere));
      expect(decipher).toHaveBeenCalled();
      decipher.mockRestore();
      // Both in the order the event was decided (a record's sealed fields in their place), as in the clear.
      const [added] = await elsewhere.readStream('customer-k1-L1');
      expect(JSON.stringify(added!.data)).toBe(JSON.stringify(customerAdded().data));
    });

    /**
     * The same event id stored with other groups than this process sealed (its append failed, and a
     * copy sealed elsewhere was stored with that id): deciphered as any other event, so an altered
     * copy fails the read rather than reading as what was sealed here.
     */
    const storedOtherwise = async (alter: (group: SealedGroup) => SealedGroup) => {
      const c1 = queued('c1');
      await raw.appendToStream('call-c1', [queued('c0')]);
      await expect(events.appendToStream('call-c1', [c1], { expectedRevision: 'no_stream' })).rejects.toThrow();
      const other = new MemoryEventStore();
      await new PersonalDataEventStore(other, keys).appendToStream('call-c2', [c1]);
      const [copy] = await other.readStream('call-c2');
      const data = copy!.data as { sealed: SealedGroup[] };
      await raw.appendToStream('call-c2', [{ ...c1, data: { ...data, sealed: data.sealed.map(alter) } }]);
      return () => events.readStream('call-c2');
    };

    it('are deciphered when stored otherwise than sealed here', async () => {
      const read = await storedOtherwise((group) => group);
      expect((await read())[0]!.data).toEqual(queued('c1').data);
    });

    it('fail the read when what is stored was altered', async () => {
      const read = await storedOtherwise((group) => {
        const bytes = Buffer.from(group.data, 'base64');
        bytes[0]! ^= 1;
        return { ...group, data: bytes.toString('base64') };
      });
      await expect(read()).rejects.toThrow(SealedFieldsTamperedError);
    });

    describe('handed to every reader as the same objects (as the SQLite store hands the events it keeps)', () => {
      const readers = async (store: EventStore) => {
        const read = [];
        for (let reader = 0; reader < 3; reader++) read.push(await store.readAll({}));
        return read;
      };

      it('look each key up once, for both whether it reads as when sealed and until when it keeps doing so', async () => {
        const kept = new KeepingStore();
        const sealing = new PersonalDataEventStore(kept, keys);
        await sealing.appendToStream('call-c1', [queued('c1')]);
        const [stored] = await kept.readAll({});
        const known = jest.spyOn(keys, 'known');
        const knownKey = jest.spyOn(keys, 'knownKey');
        const read = await readers(sealing);
        expect(read.map(([c1]) => c1!.data)).toEqual([queued('c1').data, queued('c1').data, queued('c1').data]);
        // Once per group on the first read; the readers after it trust that look until its time is up.
        expect(known).toHaveBeenCalledTimes((stored!.data as { sealed: SealedGroup[] }).sealed.length);
        expect(knownKey).not.toHaveBeenCalled();
        known.mockRestore();
        knownKey.mockRestore();
      });

      it('read as erased by every reader once the subject is erased here', async () => {
        const sealing = new PersonalDataEventStore(new KeepingStore(), keys);
        await sealing.appendToStream('call-c1', [queued('c1')]);
        for (const [c1] of await readers(sealing)) expect(c1!.data).toEqual(queued('c1').data);
        await keys.eraseSubjects([(await keys.subjectOfPhone(ORG, '919812345678'))!]);
        for (const [c1] of await readers(sealing)) expect(c1!.data).toMatchObject({ customerName: ERASED, to: ERASED });
      });

      it('read as erased once the cached key is due, after another replica erased it', async () => {
        let now = 0;
        const cached = await ReadStoreKeys.open(reads, { now: () => now, ttlMs: 5_000 });
        const sealing = new PersonalDataEventStore(new KeepingStore(), cached);
        await sealing.appendToStream('call-c1', [queued('c1')]);
        await readers(sealing);
        const replica = await ReadStoreKeys.open(reads);
        await replica.eraseSubjects([(await replica.subjectOfPhone(ORG, '919812345678'))!]);
        now = 4_000;
        for (const [c1] of await readers(sealing)) expect(c1!.data).toEqual(queued('c1').data);
        now = 6_000;
        for (const [c1] of await readers(sealing)) expect(c1!.data).toMatchObject({ customerName: ERASED, to: ERASED });
      });
    });

    it('read as erased once their key is gone, though never read before', async () => {
      await events.appendToStream('call-c1', [queued('c1')]);
      await keys.eraseSubjects([(await keys.subjectOfPhone(ORG, '919812345678'))!]);
      const [c1] = await events.readStream('call-c1');
      expect(c1!.data).toMatchObject({ customerName: ERASED, to: ERASED });
      expect(c1!.metadata.erased).toEqual(['customerName', 'to']);
    });
  });
});
