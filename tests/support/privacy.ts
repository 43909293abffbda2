/** A data subject of the privacy suites, and the collection record that adds them to a campaign. */
export type Person = { loanId: string; first: string; last: string; phone: string };

/** The person's customer record, with the loan figures every suite uses, and any extra fields. */
export const personRecord = (p: Person, extra: Record<string, unknown> = {}) => ({
  loan_id: p.loanId,
  first_name: p.first,
  last_name: p.last,
  phone_number: p.phone,
  loan_amount: 90000,
  emi_amount: 4000,
  loan_period: 24,
  current_emi: 3,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
  ...extra,
});
