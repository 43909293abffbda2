import { customerDecider, type CustomerCommand, type CustomerEvent } from '../../../domain/customers/customer';
import { recordErrors } from '../../../domain/customers/record';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(customerDecider);
const record = {
  loan_id: 'L1',
  first_name: 'Asha',
  last_name: 'Patil',
  phone_number: '+919812345678',
  loan_amount: 250000,
  emi_amount: 8500,
  loan_period: 36,
  current_emi: 4,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
  branch: 'Pune',
};
const add: CustomerCommand = {
  type: 'AddCustomer',
  campaignId: 'c1',
  customerId: 'L1',
  organizationId: 'o1',
  organizationType: 'collection',
  record,
  at,
};
const added: CustomerEvent = {
  type: 'CustomerAdded',
  data: { campaignId: 'c1', customerId: 'L1', organizationId: 'o1', organizationType: 'collection', record, at },
};

describe('customer', () => {
  it('is added once per campaign and key, keeping fields the spec does not name', () =>
    spec.given([]).when(add).then([added]));

  it('refuses a second customer with the same key (409)', () => {
    spec.given([added]).when(add).thenFails('conflict', 'Customer with this loan_id already exists in this campaign');
    const lead = { first_name: 'R', last_name: 'K', phone_number: '9812345678', lead_date: '2026-01-31', lead_id: 'X' };
    const leadAdded: CustomerEvent = {
      type: 'CustomerAdded',
      data: {
        campaignId: 'c1',
        customerId: 'X',
        organizationId: 'o1',
        organizationType: 'lead_generation',
        record: lead,
        at,
      },
    };
    spec
      .given([leadAdded])
      .when({ ...add, customerId: 'X', organizationType: 'lead_generation', record: lead })
      .thenFails('conflict', 'Customer with this lead_id already exists in this campaign');
  });

  it('takes an add from the request that made it (its origin, the same record) as done, and refuses any other', () => {
    const originAdded: CustomerEvent = { ...added, data: { ...added.data, origin: 'key@1' } };
    spec
      .given([])
      .when({ ...add, origin: 'key@1' })
      .then([originAdded]);
    spec
      .given([originAdded])
      .when({ ...add, origin: 'key@1' })
      .then([]);
    spec
      .given([originAdded])
      .when({ ...add, origin: 'key@2' })
      .thenFails('conflict', 'Customer with this loan_id already exists in this campaign');
    spec
      .given([originAdded])
      .when({ ...add, origin: 'key@1', record: { ...record, branch: 'Nashik' } })
      .thenFails('conflict', 'Customer with this loan_id already exists in this campaign');
    spec
      .given([added])
      .when({ ...add, origin: 'key@1' })
      .thenFails('conflict', 'Customer with this loan_id already exists in this campaign');
  });

  it('refuses an invalid record, naming the fields', () =>
    spec
      .given([])
      .when({ ...add, record: { ...record, first_name: undefined, current_emi: 40 } })
      .thenFails('invalid', 'Validation failed', {
        errors: ['data.first_name is required', 'data.current_emi must not be greater than data.loan_period'],
      }));

  it('updates part of the record; null removes an optional field; the merged record must stay valid', () => {
    const withLanguage: CustomerEvent = { ...added, data: { ...added.data, record: { ...record, language: 'hindi' } } };
    spec
      .given([withLanguage])
      .when({
        type: 'UpdateCustomer',
        organizationId: 'o1',
        changes: { payment_status: 'paid', language: null, emi_amount: 8500 },
        at,
      })
      .then([
        {
          type: 'CustomerUpdated',
          data: { campaignId: 'c1', customerId: 'L1', changes: { payment_status: 'paid', language: null }, at },
        },
      ]);
    spec
      .given([added])
      .when({ type: 'UpdateCustomer', organizationId: 'o1', changes: { payment_status: 'pending' }, at })
      .then([]);
    spec
      .given([added])
      .when({ type: 'UpdateCustomer', organizationId: 'o1', changes: { loan_period: 3 }, at })
      .thenFails('invalid', 'Validation failed', {
        errors: ['data.current_emi must not be greater than data.loan_period'],
      });
    spec
      .given([added])
      .when({ type: 'UpdateCustomer', organizationId: 'o1', changes: { first_name: null }, at })
      .thenFails('invalid', 'Validation failed', { errors: ['data.first_name is required'] });
    spec
      .given([added])
      .when({ type: 'UpdateCustomer', organizationId: 'o1', changes: { loan_id: 'L2' }, at })
      .thenFails('invalid', 'Validation failed', { errors: ['data.loan_id cannot be changed'] });
  });

  it('answers 404 for a customer that does not exist (or is not the organization’s)', () => {
    spec
      .given([])
      .when({ type: 'UpdateCustomer', organizationId: 'o1', changes: { payment_status: 'paid' }, at })
      .thenFails('not_found', 'Customer not found');
    spec
      .given([added])
      .when({ type: 'UpdateCustomer', organizationId: 'o2', changes: { payment_status: 'paid' }, at })
      .thenFails('not_found', 'Customer not found');
  });

  it('folds updates into the record', () => {
    const updated: CustomerEvent = {
      type: 'CustomerUpdated',
      data: { campaignId: 'c1', customerId: 'L1', changes: { branch: null, payment_status: 'paid' }, at },
    };
    const state = [added, updated].reduce(customerDecider.evolve, customerDecider.initialState());
    expect(state).toMatchObject({ status: 'active', record: { payment_status: 'paid' } });
    expect(state.status === 'active' && 'branch' in state.record).toBe(false);
  });
});

describe('customer record rules', () => {
  const errorsOf = (changes: Record<string, unknown>, type: 'collection' | 'lead_generation' = 'collection') =>
    recordErrors(type, { ...record, ...changes }, 'data.');

  it('checks phone numbers, calendar dates, amounts, counts and the payment status', () => {
    expect(errorsOf({})).toEqual([]);
    expect(errorsOf({ phone_number: '98123' })).toEqual([
      'data.phone_number must be 7 to 15 digits with an optional leading +',
    ]);
    expect(errorsOf({ phone_number: '+91 98123 45678' })).toEqual([
      'data.phone_number must be 7 to 15 digits with an optional leading +',
    ]);
    expect(errorsOf({ phone_number: '1234567890123456' })).toEqual([
      'data.phone_number must be 7 to 15 digits with an optional leading +',
    ]);
    expect(errorsOf({ phone_number: '1234567' })).toEqual([]);
    expect(errorsOf({ emi_due_date: '2026-02-30' })).toEqual([
      'data.emi_due_date must be a real date in YYYY-MM-DD format',
    ]);
    expect(errorsOf({ emi_due_date: '2028-02-29' })).toEqual([]);
    expect(errorsOf({ emi_due_date: '05/04/2026' })).toEqual([
      'data.emi_due_date must be a real date in YYYY-MM-DD format',
    ]);
    expect(errorsOf({ loan_amount: -1, emi_amount: '8500' })).toEqual([
      'data.loan_amount must be >= 0',
      'data.emi_amount must be a number',
    ]);
    expect(errorsOf({ loan_period: 0, current_emi: 1.5 })).toEqual([
      'data.loan_period must be >= 1',
      'data.current_emi must be an integer',
    ]);
    expect(errorsOf({ current_emi: 37 })).toEqual(['data.current_emi must not be greater than data.loan_period']);
    expect(errorsOf({ current_emi: 36 })).toEqual([]);
    expect(errorsOf({ payment_status: 'late' })).toEqual([
      'data.payment_status must be one of bounced, pending, partial, paid, received',
    ]);
    expect(errorsOf({ loan_id: '' })).toEqual(['data.loan_id must not be empty']);
    expect(errorsOf({ language: 7 })).toEqual(['data.language must be a string']);
  });

  it('names every missing required field of the organization type', () => {
    expect(recordErrors('collection', {}, 'data.')).toEqual(
      [
        'loan_id',
        'first_name',
        'last_name',
        'phone_number',
        'loan_amount',
        'emi_amount',
        'loan_period',
        'current_emi',
        'emi_due_date',
        'payment_status',
      ].map((f) => `data.${f} is required`),
    );
    expect(recordErrors('lead_generation', {})).toEqual([
      'first_name is required',
      'last_name is required',
      'phone_number is required',
      'lead_date is required',
    ]);
    expect(recordErrors('lead_generation', 'x')).toEqual(['record must be an object']);
    expect(recordErrors('collection', [], 'data.')).toEqual(['data must be an object']);
  });
});
