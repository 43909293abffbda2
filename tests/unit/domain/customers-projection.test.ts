import type { CustomerEvent } from '../../../domain/customers/customer';
import { languageKey } from '../../../domain/customers/keys';
import { customersProjection } from '../../../projections/customers/customers';
import { recordedEvent } from '../../support/events';

const at = '2026-03-01T10:00:00.000Z';
const recorded = (event: CustomerEvent, position: number) =>
  recordedEvent(event, position, { streamId: 'customer-c1-L1', at: at, organizationId: 'o1', actor: 't' });
const record = {
  loan_id: 'L1',
  first_name: 'Asha',
  phone_number: '+919812345678',
  payment_status: 'pending',
  language: 'Hindi',
  branch: 'Pune',
};

describe('customers read model', () => {
  it('keeps the whole record and lifts the query fields out of it', () => {
    const added = recorded(
      {
        type: 'CustomerAdded',
        data: { campaignId: 'c1', customerId: 'L1', organizationId: 'o1', organizationType: 'collection', record, at },
      },
      0,
    );
    expect(customersProjection.documentIds(added)).toEqual(['c1/L1']);
    const doc = customersProjection.evolve('c1/L1', null, added);
    expect(doc).toEqual({
      id: 'c1/L1',
      organizationId: 'o1',
      campaignId: 'c1',
      customerId: 'L1',
      payment_status: 'pending',
      language: 'hi',
      phone_number: '+919812345678',
      data: record,
      createdAt: at,
      updatedAt: at,
      addedSeq: 0,
    });
    const later = '2026-03-02T10:00:00.000Z';
    const updated = customersProjection.evolve(
      'c1/L1',
      doc,
      recorded(
        {
          type: 'CustomerUpdated',
          data: {
            campaignId: 'c1',
            customerId: 'L1',
            changes: { payment_status: 'paid', language: null, branch: 'Nashik' },
            at: later,
          },
        },
        1,
      ),
    );
    expect(updated).toMatchObject({
      payment_status: 'paid',
      language: null,
      updatedAt: later,
      data: { loan_id: 'L1', payment_status: 'paid', branch: 'Nashik' },
    });
    expect(updated!.data).not.toHaveProperty('language');
  });

  it('indexes a language by the code its word names, or the word when it names none', () => {
    expect(languageKey('Tamil')).toBe('ta');
    expect(languageKey('hi-IN')).toBe('hi');
    expect(languageKey('english')).toBe('en');
    expect(languageKey(' Klingon ')).toBe('klingon');
    expect(languageKey(undefined)).toBeNull();
    expect(languageKey('')).toBeNull();
  });
});
