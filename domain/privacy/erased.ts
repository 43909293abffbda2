/**
 * What erased personal data reads as (docs/privacy.md). Once a key is deleted, every personal field it
 * sealed reads as a placeholder, in events (replays, rebuilds, the audit, the live feed) and in read
 * models alike, so that answers, counts and rebuilt read models agree:
 *
 * - a text field (a name, a phone number, a message, a summary, a customer record's field) reads `ERASED`;
 * - a transcript keeps its turns and their speakers, each message `ERASED` (its length stays right);
 * - extracted data (an object) reads `{}`.
 *
 * An event whose fields were sealed names its subject in `metadata.subject` when read; one with fields
 * erased says which in `metadata.erased` (the paths, such as `record.first_name` or `transcript`).
 */

export const ERASED = '[erased]';

/**
 * The fields of a customer record that are not personal data (identifiers of the loan or lead, figures
 * and dates of the loan, the payment status, the language): kept in the clear, and never erased, so
 * that analytics and counts stay right. Every other field of a record (names, phone numbers, any extra
 * field) is personal.
 */
export const CLEAR_RECORD_FIELDS: ReadonlySet<string> = new Set([
  'loan_id',
  'lead_id',
  'loan_amount',
  'emi_amount',
  'loan_period',
  'current_emi',
  'emi_due_date',
  'payment_status',
  'lead_date',
  'language',
]);
