/** Customer records for the API suites: a valid Debt Collection record (spec 2.7), each with its own phone number. */
let sequence = 0;

/** A phone number no other record of this test file has. */
export const uniquePhone = (prefix = '+9198') => `${prefix}${String(10_000_000 + sequence++).padStart(8, '0')}`;

export const loanRecord = (loanId: string, extra: Record<string, unknown> = {}) => ({
  loan_id: loanId,
  first_name: `First${loanId}`,
  last_name: 'Rao',
  phone_number: uniquePhone(),
  loan_amount: 100000,
  emi_amount: 5000,
  loan_period: 20,
  current_emi: 2,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
  ...extra,
});
