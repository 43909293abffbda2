import { BUILTIN_PROVIDER, builtinInventory } from '../../../domain/numbers/builtin-inventory';
import { inventoryDecider, type InventoryEvent, type StockedNumber } from '../../../domain/numbers/inventory';
import { phoneNumberDecider, type PhoneNumberEvent } from '../../../domain/numbers/owned-number';
import { nationalPart } from '../../../domain/numbers/phone-number';
import { jsonBytes, MAX_EVENT_LIST_BYTES } from '../../../domain/shared/chunks';
import { numbersProjection } from '../../../projections/numbers/numbers';
import { specFor } from '../../support/decider-spec';
import { recordedEvent } from '../../support/events';

const at = '2026-03-01T10:00:00.000Z';
const recorded = (event: InventoryEvent | PhoneNumberEvent, position: number) =>
  recordedEvent(event, position, { streamId: 's', at: at, organizationId: null, actor: 't' });
const a: StockedNumber = { number: '+919812345678', country_iso: 'IN', sms_enabled: false, voice_enabled: true };
const b: StockedNumber = { number: '+12125550100', country_iso: 'US', sms_enabled: true, voice_enabled: true };

describe('number inventory', () => {
  const spec = specFor(inventoryDecider);
  const seeded: InventoryEvent = { type: 'InventorySeeded', data: { provider: 'builtin', numbers: [a], at } };

  it('is seeded once, however many replicas ask', () => {
    spec
      .given([])
      .when({ type: 'SeedInventory', provider: 'builtin', numbers: [a], at })
      .then([seeded]);
    spec
      .given([seeded])
      .when({ type: 'SeedInventory', provider: 'builtin', numbers: [a, b], at })
      .then([]);
  });

  it('stocks only numbers it does not hold yet, each once, with the country upper-cased', () => {
    spec
      .given([seeded])
      .when({ type: 'StockNumbers', provider: 'builtin', numbers: [a, { ...b, country_iso: 'us' }, b], at })
      .then([{ type: 'NumbersStocked', data: { provider: 'builtin', numbers: [b], at } }]);
    spec
      .given([seeded])
      .when({ type: 'StockNumbers', provider: 'builtin', numbers: [a], at })
      .then([]);
  });

  it('records a long list in parts: the seed first, the rest stocked after it, nothing lost', () => {
    const many: StockedNumber[] = Array.from({ length: 10_000 }, (_, i) => ({
      number: `+447700${100_000 + i}`,
      country_iso: 'GB',
      sms_enabled: true,
      voice_enabled: true,
    }));
    const seed = inventoryDecider.decide(
      { type: 'SeedInventory', provider: 'p', numbers: many, at },
      inventoryDecider.initialState(),
    );
    expect(seed.map((e) => e.type)).toEqual(['InventorySeeded', ...Array(seed.length - 1).fill('NumbersStocked')]);
    expect(seed.length).toBeGreaterThan(1);
    for (const event of seed) expect(jsonBytes(event.data.numbers)).toBeLessThanOrEqual(MAX_EVENT_LIST_BYTES);
    expect(seed.flatMap((e) => e.data.numbers)).toEqual(many);
    const stocked = inventoryDecider.decide(
      { type: 'StockNumbers', provider: 'p', numbers: many, at },
      inventoryDecider.initialState(),
    );
    expect(stocked.flatMap((e) => e.data.numbers)).toEqual(many);
    expect(stocked.every((e) => e.type === 'NumbersStocked')).toBe(true);
  });

  it('refuses a number that does not belong to its country, and an unknown country', () => {
    spec
      .given([])
      .when({
        type: 'StockNumbers',
        provider: 'x',
        numbers: [
          { ...a, country_iso: 'US' },
          { ...b, country_iso: 'ZZ' },
        ],
        at,
      })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          '[0].number must be an E.164 number of country US (+1)',
          '[1].country_iso ZZ is not a supported country',
        ],
      });
  });
});

describe('a phone number', () => {
  const spec = specFor(phoneNumberDecider);
  const purchased: PhoneNumberEvent = {
    type: 'NumberPurchased',
    data: { ...a, provider: 'builtin', organizationId: 'o1', at },
  };

  it('is bought from the inventory by one organization', () =>
    spec
      .given([])
      .when({ type: 'BuyNumber', provider: 'builtin', number: a.number, stocked: a, organizationId: 'o1', at })
      .then([purchased]));

  it('is not available once owned, nor when no inventory offers it', () => {
    spec
      .given([purchased])
      .when({ type: 'BuyNumber', provider: 'builtin', number: a.number, stocked: a, organizationId: 'o2', at })
      .thenFails('conflict', 'Number not available');
    spec
      .given([purchased])
      .when({ type: 'BuyNumber', provider: 'builtin', number: a.number, stocked: a, organizationId: 'o1', at })
      .thenFails('conflict', 'Number already owned by your organization');
    spec
      .given([])
      .when({ type: 'BuyNumber', provider: 'builtin', number: a.number, stocked: null, organizationId: 'o1', at })
      .thenFails('not_found', 'Number not available');
  });

  const importing = {
    type: 'ImportNumber' as const,
    ...b,
    provider: 'twilio',
    organizationId: 'o1',
    providerConnected: true,
    refusal: null,
    stockedBy: null,
    at,
  };
  const imported: PhoneNumberEvent = {
    type: 'NumberImported',
    data: { ...b, provider: 'twilio', organizationId: 'o1', at },
  };

  it('is imported only when the provider shows the account holding it, and never from a stock', () => {
    spec.given([]).when(importing).then([imported]);
    spec
      .given([])
      .when({ ...importing, refusal: 'Number not found among the incoming numbers of your Twilio account' })
      .thenFails('invalid', 'Number not found among the incoming numbers of your Twilio account');
    spec
      .given([])
      .when({ ...importing, stockedBy: 'builtin' })
      .thenFails(
        'invalid',
        'Number is offered by the builtin provider: buy it (POST /api/v1/numbers/buyNumbers), it cannot be imported',
      );
    spec
      .given([])
      .when({ ...importing, providerConnected: false })
      .thenFails(
        'invalid',
        'Provider twilio is not connected: connect your account first (PUT /api/v1/providers/twilio)',
      );
  });

  it('passes from an importer the provider does not show holding it, and from no other owner', () => {
    spec
      .given([imported])
      .when({ ...importing, organizationId: 'o2', displacing: 'o1' })
      .then([{ ...imported, data: { ...imported.data, organizationId: 'o2', displaced: 'o1' } }]);
    spec
      .given([imported])
      .when({ ...importing, organizationId: 'o2', displacing: 'o3' })
      .thenFails('conflict', 'Number already owned by another organization');
    spec
      .given([imported])
      .when({ ...importing, displacing: 'o1' })
      .thenFails('conflict', 'Number already owned by your organization');
    // A bought number is its buyer's, whatever a provider says.
    spec
      .given([purchased])
      .when({
        type: 'BuyNumber',
        provider: 'builtin',
        number: a.number,
        stocked: a,
        organizationId: 'o2',
        at,
        displacing: 'o1',
      })
      .thenFails('conflict', 'Number not available');
    const squatted: PhoneNumberEvent = {
      type: 'NumberImported',
      data: { ...a, provider: 'twilio', organizationId: 'o1', at },
    };
    spec
      .given([squatted])
      .when({
        type: 'BuyNumber',
        provider: 'builtin',
        number: a.number,
        stocked: a,
        organizationId: 'o2',
        at,
        displacing: 'o1',
      })
      .then([{ ...purchased, data: { ...purchased.data, organizationId: 'o2', displaced: 'o1' } }]);
  });

  it('is released by its owner only, and may then be imported or bought again', () => {
    spec
      .given([imported])
      .when({ type: 'ReleaseNumber', organizationId: 'o2', at })
      .thenFails('not_found', 'Number not found');
    const released: PhoneNumberEvent = {
      type: 'NumberReleased',
      data: { number: b.number, provider: 'twilio', organizationId: 'o1', imported: true, at },
    };
    spec.given([imported]).when({ type: 'ReleaseNumber', organizationId: 'o1', at }).then([released]);
    spec
      .given([imported, released])
      .when({ ...importing, organizationId: 'o2' })
      .then([{ ...imported, data: { ...imported.data, organizationId: 'o2' } }]);
    spec
      .given([purchased])
      .when({ type: 'ReleaseNumber', organizationId: 'o1', at })
      .then([
        {
          type: 'NumberReleased',
          data: { number: a.number, provider: 'builtin', organizationId: 'o1', imported: false, at },
        },
      ]);
    spec
      .given([imported, released])
      .when({ type: 'ReleaseNumber', organizationId: 'o1', at })
      .thenFails('not_found', 'Number not found');
  });
});

describe('the built-in inventory', () => {
  const numbers = builtinInventory();

  it('is the same on every call, without duplicates', () => {
    expect(builtinInventory()).toEqual(numbers);
    expect(new Set(numbers.map((n) => n.number)).size).toBe(numbers.length);
    expect(BUILTIN_PROVIDER).toBe('builtin');
  });

  it('holds a few hundred Indian mobile numbers and some US numbers, in E.164', () => {
    const indian = numbers.filter((n) => n.country_iso === 'IN');
    const us = numbers.filter((n) => n.country_iso === 'US');
    expect(indian.length).toBeGreaterThanOrEqual(200);
    expect(us.length).toBeGreaterThan(20);
    for (const n of indian) expect(n.number).toMatch(/^\+91[6-9]\d{9}$/);
    for (const n of us) expect(n.number).toMatch(/^\+1[2-9]\d{2}[2-9]\d{6}$/);
  });

  it('is mostly voice-enabled, with some SMS-only and some numbers doing both', () => {
    const voice = numbers.filter((n) => n.voice_enabled).length;
    expect(voice / numbers.length).toBeGreaterThan(0.75);
    expect(numbers.some((n) => n.sms_enabled && !n.voice_enabled)).toBe(true);
    expect(numbers.some((n) => n.sms_enabled && n.voice_enabled)).toBe(true);
  });

  it('splits numbers into country code and national part', () => {
    expect(nationalPart('+919812345678', 'in')).toBe('9812345678');
    expect(nationalPart('+12125550100', 'US')).toBe('2125550100');
    expect(nationalPart('+919812345678', 'US')).toBeNull();
  });
});

describe('numbers read model', () => {
  it('keeps a number available until bought, then owned by the buyer; stocking it again changes nothing', () => {
    const stocked = recorded({ type: 'NumbersStocked', data: { provider: 'builtin', numbers: [b, a], at } }, 1);
    expect(numbersProjection.documentIds(stocked)).toEqual([b.number, a.number]);
    const available = numbersProjection.evolve(a.number, null, stocked);
    expect(available).toEqual({
      id: a.number,
      ...a,
      provider: 'builtin',
      national: '9812345678',
      status: 'available',
      organizationId: null,
      stockedAt: at,
      purchasedAt: null,
    });
    const bought = numbersProjection.evolve(
      a.number,
      available,
      recorded(
        {
          type: 'NumberPurchased',
          data: { ...a, provider: 'builtin', organizationId: 'o1', at: '2026-03-02T00:00:00.000Z' },
        },
        2,
      ),
    );
    expect(bought).toMatchObject({
      status: 'owned',
      organizationId: 'o1',
      purchasedAt: '2026-03-02T00:00:00.000Z',
      stockedAt: at,
    });
    expect(numbersProjection.evolve(a.number, bought, stocked)).toBe(bought);
    const release = (imported: boolean) =>
      recorded(
        { type: 'NumberReleased', data: { number: a.number, provider: 'builtin', organizationId: 'o1', imported, at } },
        3,
      );
    // Released, a bought number is offered again; an imported one is gone.
    expect(numbersProjection.evolve(a.number, bought, release(false))).toEqual({ ...available, inbound: null });
    expect(numbersProjection.evolve(a.number, { ...bought!, imported: true }, release(true))).toBeNull();
  });
});
