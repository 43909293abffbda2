import { blacklistDecider, normalizePhoneNumber, type BlacklistEvent } from '../../../domain/blacklist/blacklist';
import { blacklistProjection } from '../../../projections/blacklist/blacklist';
import { jsonBytes, MAX_EVENT_LIST_BYTES } from '../../../domain/shared/chunks';
import { specFor } from '../../support/decider-spec';
import { recordedEvent } from '../../support/events';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(blacklistDecider);
const listed: BlacklistEvent = {
  type: 'NumbersBlacklisted',
  data: { organizationId: 'o1', entries: [{ number: '+919812345678', name: 'Asha' }], at },
};

describe('blacklist', () => {
  it('normalizes numbers: separators dropped, a leading + kept, 7 to 15 digits', () => {
    expect(normalizePhoneNumber(' +91 (981) 234-5678 ')).toBe('+919812345678');
    expect(normalizePhoneNumber('981.234.5678')).toBe('9812345678');
    expect(normalizePhoneNumber('123456')).toBeNull();
    expect(normalizePhoneNumber('1234567890123456')).toBeNull();
    expect(normalizePhoneNumber('98123x5678')).toBeNull();
    expect(normalizePhoneNumber('++919812345678')).toBeNull();
  });

  it('records a long import in parts of bounded size, in order, and only the numbers not listed yet', () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({
      number: `+9198${String(i).padStart(8, '0')}`,
      name: 'ಕ'.repeat(200),
    }));
    const command = { type: 'AddToBlacklist' as const, organizationId: 'o1', entries, at };
    const events = blacklistDecider.decide(command, blacklistDecider.initialState());
    expect(events.length).toBeGreaterThan(1);
    const parts = events.map((e) => (e.type === 'NumbersBlacklisted' ? e.data.entries : []));
    for (const part of parts) expect(jsonBytes(part)).toBeLessThanOrEqual(MAX_EVENT_LIST_BYTES);
    expect(parts.flat()).toEqual(entries);
    // Decided again after its first part was recorded, it records the rest.
    const again = blacklistDecider.decide(
      command,
      blacklistDecider.evolve(blacklistDecider.initialState(), events[0]!),
    );
    expect(again.flatMap((e) => (e.type === 'NumbersBlacklisted' ? e.data.entries : []))).toEqual(
      parts.slice(1).flat(),
    );
  });

  it('adds numbers, each once, in their normalized form', () =>
    spec
      .given([])
      .when({
        type: 'AddToBlacklist',
        organizationId: 'o1',
        entries: [
          { number: '+91 98123-45678', name: ' Asha ' },
          { number: '919812345678' },
          { number: '022 2345 6789' },
        ],
        at,
      })
      .then([
        {
          type: 'NumbersBlacklisted',
          data: {
            organizationId: 'o1',
            entries: [
              { number: '+919812345678', name: 'Asha' },
              { number: '02223456789', name: null },
            ],
            at,
          },
        },
      ]));

  it('records a listed number again only to rename it', () => {
    spec
      .given([listed])
      .when({
        type: 'AddToBlacklist',
        organizationId: 'o1',
        entries: [{ number: '919812345678' }, { number: '+919812345678', name: 'Asha' }],
        at,
      })
      .then([]);
    spec
      .given([listed])
      .when({ type: 'AddToBlacklist', organizationId: 'o1', entries: [{ number: '919812345678', name: 'Asha P' }], at })
      .then([
        {
          type: 'NumbersBlacklisted',
          data: { organizationId: 'o1', entries: [{ number: '+919812345678', name: 'Asha P' }], at },
        },
      ]);
  });

  it('refuses a request with an invalid number, naming every bad item', () =>
    spec
      .given([])
      .when({
        type: 'AddToBlacklist',
        organizationId: 'o1',
        entries: [{ number: '+919812345678' }, { number: '12-34' }, { number: 'call me' }],
        at,
      })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          '[1].number must be 7 to 15 digits with an optional leading + (got "12-34")',
          '[2].number must be 7 to 15 digits with an optional leading + (got "call me")',
        ],
      }));

  it('removes listed numbers in any written form; an unlisted number is not an error', () => {
    spec
      .given([listed])
      .when({ type: 'RemoveFromBlacklist', organizationId: 'o1', numbers: ['91 98123 45678', '+15550000000'], at })
      .then([{ type: 'NumbersRemovedFromBlacklist', data: { organizationId: 'o1', numbers: ['+919812345678'], at } }]);
    spec
      .given([])
      .when({ type: 'RemoveFromBlacklist', organizationId: 'o1', numbers: ['+15550000000'], at })
      .then([]);
    spec
      .given([
        listed,
        { type: 'NumbersRemovedFromBlacklist', data: { organizationId: 'o1', numbers: ['+919812345678'], at } },
      ])
      .when({ type: 'RemoveFromBlacklist', organizationId: 'o1', numbers: ['+919812345678'], at })
      .then([]);
  });
});

describe('blacklist read model', () => {
  const recorded = (event: BlacklistEvent, position: number) =>
    recordedEvent(event, position, { streamId: 'blacklist-o1', at });

  it('keeps one document per organization and digits; renaming keeps when it was added; removal deletes it', () => {
    const added = recorded(listed, 0);
    expect(blacklistProjection.documentIds(added)).toEqual(['o1/919812345678']);
    const doc = blacklistProjection.evolve('o1/919812345678', null, added);
    expect(doc).toEqual({
      id: 'o1/919812345678',
      organizationId: 'o1',
      number: '+919812345678',
      name: 'Asha',
      addedAt: at,
    });
    const renamed = blacklistProjection.evolve(
      'o1/919812345678',
      doc,
      recorded(
        {
          type: 'NumbersBlacklisted',
          data: {
            organizationId: 'o1',
            entries: [{ number: '+919812345678', name: 'A' }],
            at: '2026-04-01T00:00:00.000Z',
          },
        },
        1,
      ),
    );
    expect(renamed).toEqual({ ...doc, name: 'A' });
    expect(
      blacklistProjection.evolve(
        'o1/919812345678',
        renamed,
        recorded(
          { type: 'NumbersRemovedFromBlacklist', data: { organizationId: 'o1', numbers: ['+919812345678'], at } },
          2,
        ),
      ),
    ).toBeNull();
  });
});
