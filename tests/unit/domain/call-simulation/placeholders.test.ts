import { fillTemplate, placeholdersOf, unknownPlaceholders } from '../../../../domain/shared/placeholders';

describe('template placeholders', () => {
  it('lists each field once in order of use, allowing spaces inside the braces', () => {
    expect(placeholdersOf('Hi {{first_name}}, {{ emi_amount }} due {{emi_due_date}}; {{first_name}}')).toEqual([
      'first_name',
      'emi_amount',
      'emi_due_date',
    ]);
    expect(placeholdersOf('no fields {{}} here')).toEqual([]);
  });

  it('reports the fields a record type does not have', () => {
    expect(
      unknownPlaceholders('Hi {{first_name}}, pay {{ emi_amont }} by {{due}} {{due}}', ['first_name', 'emi_amount']),
    ).toEqual(['emi_amont', 'due']);
    expect(unknownPlaceholders('Hi {{first_name}}', new Set(['first_name']))).toEqual([]);
  });

  it('fills fields from the record, amounts in Indian digit grouping', () => {
    const record = {
      first_name: 'Ravi',
      emi_amount: 4500,
      loan_amount: 150000,
      fee: 1234.5,
      outstanding_amount: '2500000',
    };
    expect(fillTemplate('Hi {{ first_name }}, pay ₹{{emi_amount}} of ₹{{loan_amount}}', record)).toBe(
      'Hi Ravi, pay ₹4,500 of ₹1,50,000',
    );
    expect(fillTemplate('{{fee}} / {{outstanding_amount}}', record)).toBe('1,234.50 / 25,00,000');
  });

  it('writes identifiers and phone numbers as they are', () => {
    expect(
      fillTemplate('{{phone_number}} {{loan_id}} {{current_emi}}', {
        phone_number: 9876543210,
        loan_id: 120045,
        current_emi: 3,
      }),
    ).toBe('9876543210 120045 3');
  });

  it('keeps dates as written unless told how to read them', () => {
    const record = { emi_due_date: '2026-03-12', bad_date: '2026-02-30' };
    expect(fillTemplate('due {{emi_due_date}}', record)).toBe('due 2026-03-12');
    const formatDate = (iso: string) => `day ${iso.slice(8)}`;
    expect(fillTemplate('due {{emi_due_date}}, {{bad_date}}', record, { formatDate })).toBe('due day 12, 2026-02-30');
  });

  it('leaves an empty string, never undefined, for a missing field', () => {
    const filled = fillTemplate('Hi {{first_name}} {{last_name}}{{nothing}}!', { first_name: 'Ravi', last_name: null });
    expect(filled).toBe('Hi Ravi !');
    expect(filled).not.toMatch(/undefined|null|\{\{/);
  });

  it('finds a field whatever the case of the placeholder', () => {
    expect(fillTemplate('{{First_Name}}', { first_name: 'Ravi' })).toBe('Ravi');
  });
});
