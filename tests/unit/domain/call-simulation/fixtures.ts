/** Customers, agents and dispositions shared by the call simulation specs. */
import type { CallSimulationInput, DispositionRef } from '../../../../domain/calls/simulation/simulate-call';

export const at = '2026-03-05T06:30:00.000Z';

export const collectionCustomer = {
  loan_id: 'LN-1001',
  first_name: 'Ravi',
  last_name: 'Kumar',
  phone_number: '+919876543210',
  loan_amount: 150000,
  emi_amount: 4500,
  loan_period: 24,
  current_emi: 3,
  emi_due_date: '2026-03-01',
  payment_status: 'bounced',
  language: 'english',
};

export const leadCustomer = {
  lead_id: 'LD-77',
  first_name: 'Meena',
  last_name: 'Iyer',
  phone_number: '9123456780',
  lead_date: '2026-02-20',
  language: 'english',
};

/** One disposition per topic, named as organizations commonly name them. */
export const fullCatalog: DispositionRef[] = [
  { id: 'ptp', name: 'PTP' },
  { id: 'time', name: 'Needs More Time' },
  { id: 'paid', name: 'Already Paid' },
  { id: 'dispute', name: 'Dispute' },
  { id: 'wrong', name: 'Wrong Number' },
  { id: 'callback', name: 'Call Back Later' },
  { id: 'interested', name: 'Interested' },
  { id: 'not-interested', name: 'Not Interested' },
  { id: 'busy', name: 'Busy' },
  { id: 'no-answer', name: 'No Answer' },
  { id: 'voicemail', name: 'Voicemail' },
  { id: 'invalid', name: 'Invalid Number' },
  { id: 'unreachable', name: 'Unreachable' },
];

export const collectionInput = (seed: string, customer: Record<string, unknown> = {}): CallSimulationInput => ({
  seed,
  at,
  organizationType: 'collection',
  customer: { ...collectionCustomer, ...customer },
  agent: { name: 'Asha' },
  dispositions: fullCatalog,
});

export const leadInput = (seed: string, customer: Record<string, unknown> = {}): CallSimulationInput => ({
  seed,
  at,
  organizationType: 'lead_generation',
  customer: { ...leadCustomer, ...customer },
  agent: { name: 'Asha' },
  dispositions: fullCatalog,
});

export const seeds = (count: number, prefix = 'seed'): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
