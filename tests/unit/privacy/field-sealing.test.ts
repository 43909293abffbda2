/**
 * Sealing an event's personal fields: what is stored, what reads back with the key, without it, and
 * what happens to a sealed group that was changed or moved.
 */
import { createDecipheriv, randomBytes } from 'node:crypto';
import {
  opensInPlace,
  SealedFieldsTamperedError,
  sealedGroupsOf,
  sealFields,
  unsealFields,
  type SealedGroup,
} from '../../../application/privacy/field-sealing';
import { ERASED } from '../../../domain/privacy/erased';

const subjectKey = { keyId: 'subject-1', key: randomBytes(32) };
const contentKey = { keyId: 'subject-1.c1', key: randomBytes(32) };
const keyOf = (keyId: string) => [subjectKey, contentKey].find((k) => k.keyId === keyId)?.key ?? null;

const ended = {
  callId: 'c1',
  at: '2026-03-01T10:00:00.000Z',
  status: 'Completed',
  summary: 'Asha promised to pay on Friday.',
  extractedData: { promiseDate: '2026-03-06', amount: 8500 },
  transcript: [
    { speaker: 'BOT', message: 'Namaste Asha, this is about your EMI.' },
    { speaker: 'HUMAN', message: 'I will pay on Friday.' },
  ],
};
const sealEnded = () =>
  sealFields('CallEnded', ended, [{ ...contentKey, fields: ['transcript', 'summary', 'extractedData'] }]);

const added = {
  campaignId: 'k1',
  record: { loan_id: 'L1', first_name: 'Asha', phone_number: '+919812345678', loan_amount: 250000, branch: 'B1' },
};

/** A group opened as the envelope is documented: AES-256-GCM, the tag last, `["sealed/1", key, type, fields]` bound. */
function openAsDocumented(eventType: string, group: SealedGroup): unknown[] {
  const bytes = Buffer.from(group.data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(group.key)!, Buffer.from(group.iv, 'base64'));
  decipher.setAAD(Buffer.from(JSON.stringify(['sealed/1', group.key, eventType, group.fields])));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as unknown[];
}

describe('sealing personal fields', () => {
  it('takes the fields out of the data and keeps them only encrypted', () => {
    const stored = sealEnded();
    const text = JSON.stringify(stored);
    expect(text).not.toContain('Asha');
    expect(text).not.toContain('Friday');
    // Fields sealed whole keep their place, empty.
    expect(stored).toHaveProperty('summary', null);
    expect(stored).toHaveProperty('extractedData', null);
    // The turns and their speakers stay, without their messages.
    expect(stored.transcript).toEqual([{ speaker: 'BOT' }, { speaker: 'HUMAN' }]);
    expect(stored).toMatchObject({ callId: 'c1', status: 'Completed' });
    const [group] = sealedGroupsOf(stored);
    expect(group).toMatchObject({ key: 'subject-1.c1', fields: ['transcript', 'summary', 'extractedData'] });
    expect(Buffer.from(group!.iv, 'base64')).toHaveLength(12);
  });

  it('reads back exactly what was sealed, and leaves the event it sealed untouched', () => {
    const before = structuredClone(ended);
    const opened = unsealFields('CallEnded', sealEnded(), keyOf);
    expect(opened).toEqual({ data: ended, erased: [] });
    expect(ended).toEqual(before);
  });

  it("seals a record's personal fields and keeps its clear ones", () => {
    const stored = sealFields('CustomerAdded', added, [
      { ...subjectKey, fields: ['record.first_name', 'record.phone_number', 'record.branch'] },
    ]);
    // Each sealed field keeps its place in the record, empty.
    expect(stored.record).toStrictEqual({
      loan_id: 'L1',
      first_name: null,
      phone_number: null,
      loan_amount: 250000,
      branch: null,
    });
    expect(unsealFields('CustomerAdded', stored, keyOf).data).toEqual(added);
    expect(added.record).toHaveProperty('first_name', 'Asha');
  });

  it('opens a record and top-level fields in the order they were decided, opened or erased', () => {
    const groups = [{ ...subjectKey, fields: ['record.first_name', 'record.phone_number', 'record.branch'] }];
    const stored = sealFields('CustomerAdded', added, groups);
    expect(opensInPlace(added, groups)).toBe(true);
    const opened = unsealFields('CustomerAdded', stored, keyOf).data as typeof added;
    expect(JSON.stringify(opened)).toBe(JSON.stringify(added));
    const erased = unsealFields('CustomerAdded', stored, () => null).data as typeof added;
    expect(Object.keys(erased.record)).toEqual(Object.keys(added.record));

    const chat = { customerName: 'Asha', to: '+9198', campaignId: 'k1', content: 'Hello Asha', at: 'now' };
    const chatGroups = [
      { ...subjectKey, fields: ['customerName', 'to'] },
      { ...contentKey, fields: ['content'] },
    ];
    expect(opensInPlace(chat, chatGroups)).toBe(true);
    expect(
      JSON.stringify(unsealFields('ChatRequested', sealFields('ChatRequested', chat, chatGroups), keyOf).data),
    ).toBe(JSON.stringify(chat));
  });

  it('seals each record with its own fields, whatever the records sealed before it had', () => {
    const other = { campaignId: 'k1', record: { loan_id: 'L2', last_name: 'Rao', loan_amount: 1, city: 'Pune' } };
    const fieldsOf = (data: typeof added | typeof other) =>
      Object.keys(data.record)
        .filter((name) => !['loan_id', 'loan_amount'].includes(name))
        .map((name) => `record.${name}`);
    for (const data of [added, other, added, other, other, added]) {
      const stored = sealFields('CustomerAdded', data, [{ ...subjectKey, fields: fieldsOf(data) }]);
      expect(Object.entries(stored.record as object)).toEqual(
        Object.entries(data.record).map(([name, value]) => [
          name,
          fieldsOf(data).includes(`record.${name}`) ? null : value,
        ]),
      );
      expect(JSON.stringify(unsealFields('CustomerAdded', stored, keyOf).data)).toBe(JSON.stringify(data));
    }
  });

  it('does not open a transcript in place: its messages go back at the end of each turn', () => {
    expect(opensInPlace(ended, [{ ...contentKey, fields: ['transcript', 'summary', 'extractedData'] }])).toBe(false);
    expect(opensInPlace(ended, [{ ...contentKey, fields: ['summary', 'extractedData'] }])).toBe(true);
  });

  it('opens a record sealed before its fields kept their place, with the sealed fields after the others', () => {
    const groups = [{ ...subjectKey, fields: ['record.first_name', 'record.phone_number', 'record.branch'] }];
    const stored = sealFields('CustomerAdded', added, groups);
    // As sealing stored it before: the sealed fields left out of the record.
    const before = { ...stored, record: { loan_id: 'L1', loan_amount: 250000 } };
    const opened = unsealFields('CustomerAdded', before, keyOf).data as typeof added;
    expect(opened).toEqual(added);
    expect(Object.keys(opened.record)).toEqual(['loan_id', 'loan_amount', 'first_name', 'phone_number', 'branch']);
  });

  it('gives every group an IV of its own', () => {
    const stored = sealFields('ChatRequested', { customerName: 'Asha', to: '+9198', content: 'Hello Asha' }, [
      { ...subjectKey, fields: ['customerName', 'to'] },
      { ...contentKey, fields: ['content'] },
    ]);
    const [a, b] = sealedGroupsOf(stored);
    expect(a!.iv).not.toBe(b!.iv);
    expect(sealedGroupsOf(sealEnded())[0]!.iv).not.toBe(sealedGroupsOf(sealEnded())[0]!.iv);
  });

  it('reads erased placeholders once the key is gone, and says which fields', () => {
    const opened = unsealFields('CallEnded', sealEnded(), () => null);
    expect(opened.erased).toEqual(['transcript', 'summary', 'extractedData']);
    expect(opened.data).toEqual({
      ...ended,
      summary: ERASED,
      extractedData: {},
      transcript: [
        { speaker: 'BOT', message: ERASED },
        { speaker: 'HUMAN', message: ERASED },
      ],
    });
  });

  it('erases only the group whose key is gone', () => {
    const stored = sealFields('ChatRequested', { customerName: 'Asha', to: '+9198', content: 'Hello Asha' }, [
      { ...subjectKey, fields: ['customerName', 'to'] },
      { ...contentKey, fields: ['content'] },
    ]);
    const opened = unsealFields('ChatRequested', stored, (id) => (id === contentKey.keyId ? null : keyOf(id)));
    expect(opened).toEqual({ data: { customerName: 'Asha', to: '+9198', content: ERASED }, erased: ['content'] });
  });

  it('binds each group to its own paths when the events of a type seal several groups, in any order', () => {
    const shapes: { fields: string[]; data: Record<string, unknown> }[] = [
      { fields: ['customerName', 'to'], data: { customerName: 'Asha', to: '+9198' } },
      { fields: ['to'], data: { to: '+9197' } },
      { fields: ['customerName'], data: { customerName: 'Ravi' } },
      { fields: ['to', 'customerName'], data: { to: '+9196', customerName: 'Meera' } },
      { fields: ['customerName', 'to', 'from'], data: { customerName: 'Joy', to: '+9195', from: '+9194' } },
      { fields: ['from'], data: { from: '+9193' } },
    ];
    // Every shape after every other one, each event with its content in a second group of its own.
    for (let round = 0; round < 3; round++)
      for (const [i, shape] of shapes.entries()) {
        const data = { ...shape.data, content: `Hello ${i}` };
        const stored = sealFields('ChatRequested', data, [
          { ...subjectKey, fields: shape.fields },
          { ...contentKey, fields: ['content'] },
        ]);
        expect(unsealFields('ChatRequested', stored, keyOf)).toEqual({ data, erased: [] });
        // Each group opens with the associated data docs/privacy.md gives, written out here.
        for (const group of sealedGroupsOf(stored))
          expect(openAsDocumented('ChatRequested', group)).toEqual(
            group.fields.map((f) => data[f as keyof typeof data]),
          );
      }
  });

  it('writes fields of a subject already erased as erased, with nothing to decrypt', () => {
    const stored = sealFields('CallEnded', ended, [
      { keyId: 'gone', key: null, fields: ['transcript', 'summary', 'extractedData'] },
    ]);
    expect(JSON.stringify(stored)).not.toContain('Friday');
    expect(unsealFields('CallEnded', stored, () => null).erased).toEqual(['transcript', 'summary', 'extractedData']);
  });

  describe('a sealed group that was changed or moved fails loudly', () => {
    const tamper = (change: (group: SealedGroup) => SealedGroup, type = 'CallEnded') => {
      const stored = sealEnded();
      const groups = sealedGroupsOf(stored).map(change);
      return () => unsealFields(type, { ...stored, sealed: groups }, keyOf);
    };

    it('a changed byte of the ciphertext', () => {
      expect(
        tamper((g) => {
          const bytes = Buffer.from(g.data, 'base64');
          bytes[0] = bytes[0]! ^ 1;
          return { ...g, data: bytes.toString('base64') };
        }),
      ).toThrow(SealedFieldsTamperedError);
    });

    it('another event type (the associated data names the type)', () => {
      expect(tamper((g) => g, 'ChatEnded')).toThrow(SealedFieldsTamperedError);
    });

    it('other field paths (the associated data names the paths)', () => {
      expect(tamper((g) => ({ ...g, fields: ['summary', 'transcript', 'extractedData'] }))).toThrow(
        SealedFieldsTamperedError,
      );
    });

    it('another key id naming the same key (the associated data names the key id)', () => {
      const stored = sealEnded();
      const [group] = sealedGroupsOf(stored);
      const open = () =>
        unsealFields('CallEnded', { ...stored, sealed: [{ ...group!, key: 'other' }] }, () => contentKey.key);
      expect(open).toThrow(SealedFieldsTamperedError);
    });

    it('an empty group whose key exists', () => {
      expect(tamper((g) => ({ ...g, iv: '', data: '' }))).toThrow(SealedFieldsTamperedError);
    });
  });

  it('hands data with nothing sealed back as it is (events written before sealing)', () => {
    const clear = { customerName: 'Asha', to: '+9198' };
    expect(unsealFields('CallQueued', clear, keyOf)).toEqual({ data: clear, erased: [] });
  });
});
