/**
 * The customer record of spec 2.7: its shape follows the organization type (`collection`: Debt
 * Collection record keyed by `loan_id`; `lead_generation`: Lead Generation record keyed by `lead_id`),
 * with the sane checks of decisions.md section 6. Fields the spec does not name are kept as given, up
 * to a size (`MAX_RECORD_BYTES`).
 *
 * Every message names the field, prefixed with where the record sits in the request (`data.` for one
 * record, nothing inside a bulk item, whose index is reported beside it).
 */
import { isTimeZone } from '../campaigns/schedule';
import { jsonFitsIn } from '../shared/chunks';
import { isIsoDate } from '../shared/format';
import type { OrganizationType } from '../organizations/organization';

export type CustomerRecord = Record<string, unknown>;
export type CustomerKeyField = 'loan_id' | 'lead_id';

export const PAYMENT_STATUSES = ['bounced', 'pending', 'partial', 'paid', 'received'] as const;
export const MAX_ID_LENGTH = 200;
const MAX_TEXT_LENGTH = 1000;
/**
 * A record, extra fields included, is at most this large as JSON: it is recorded whole in one event,
 * and an event store refuses large appends (EventStoreDB: 1 MiB by default, for a whole group commit).
 */
export const MAX_RECORD_BYTES = 64 * 1024;

type FieldRule = { required: boolean; check: (value: unknown) => string | null };

/** A string that is not blank, of at most `max` characters. */
const nonBlank =
  (max: number): FieldRule['check'] =>
  (v) => {
    if (typeof v !== 'string') return 'must be a string';
    if (v.trim() === '') return 'must not be empty';
    return v.length > max ? `must be at most ${max} characters` : null;
  };
const text = nonBlank(MAX_TEXT_LENGTH);
const identifier = nonBlank(MAX_ID_LENGTH);
const phone: FieldRule['check'] = (v) => {
  if (typeof v !== 'string') return 'must be a string';
  return /^\+?\d{7,15}$/.test(v) ? null : 'must be 7 to 15 digits with an optional leading +';
};
const date: FieldRule['check'] = (v) => {
  if (typeof v !== 'string') return 'must be a string';
  return isIsoDate(v) ? null : 'must be a real date in YYYY-MM-DD format';
};
const amount: FieldRule['check'] = (v) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a number';
  return v < 0 ? 'must be >= 0' : null;
};
const count =
  (min: number): FieldRule['check'] =>
  (v) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) return 'must be an integer';
    return v < min ? `must be >= ${min}` : null;
  };
const paymentStatus: FieldRule['check'] = (v) =>
  (PAYMENT_STATUSES as readonly unknown[]).includes(v) ? null : `must be one of ${PAYMENT_STATUSES.join(', ')}`;
const language: FieldRule['check'] = (v) => {
  if (typeof v !== 'string') return 'must be a string';
  return v.length > 50 ? 'must be at most 50 characters' : null;
};

/** The customer's own IANA zone: their calling window is kept in it (docs/campaign-schedules.md). */
const timezone: FieldRule['check'] = (v) =>
  typeof v === 'string' && v.length <= 64 && isTimeZone(v) ? null : 'must be an IANA time zone such as Asia/Kolkata';

const RULES: Record<OrganizationType, Record<string, FieldRule>> = {
  collection: {
    loan_id: { required: true, check: identifier },
    first_name: { required: true, check: text },
    last_name: { required: true, check: text },
    phone_number: { required: true, check: phone },
    loan_amount: { required: true, check: amount },
    emi_amount: { required: true, check: amount },
    loan_period: { required: true, check: count(1) },
    current_emi: { required: true, check: count(0) },
    emi_due_date: { required: true, check: date },
    payment_status: { required: true, check: paymentStatus },
    language: { required: false, check: language },
    timezone: { required: false, check: timezone },
  },
  lead_generation: {
    lead_id: { required: false, check: identifier },
    first_name: { required: true, check: text },
    last_name: { required: true, check: text },
    phone_number: { required: true, check: phone },
    lead_date: { required: true, check: date },
    language: { required: false, check: language },
    timezone: { required: false, check: timezone },
  },
};

/** The rules of each type as a list, made once: a bulk add checks 10,000 records, twice each. */
const RULE_LISTS: Record<OrganizationType, readonly [string, FieldRule][]> = {
  collection: Object.entries(RULES.collection),
  lead_generation: Object.entries(RULES.lead_generation),
};

/** The fields the spec names for an organization type's records (what templates may refer to). */
export const recordFields = (type: OrganizationType): readonly string[] => Object.keys(RULES[type]);

export const keyFieldOf = (type: OrganizationType): CustomerKeyField => (type === 'collection' ? 'loan_id' : 'lead_id');

const isObject = (value: unknown): value is CustomerRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every problem of a record, each naming its field; empty when the record is valid. */
export function recordErrors(type: OrganizationType, record: unknown, prefix = ''): string[] {
  const name = (field: string) => `${prefix}${field}`;
  if (!isObject(record)) return [`${prefix ? prefix.slice(0, -1) : 'record'} must be an object`];
  const errors: string[] = [];
  for (const [field, rule] of RULE_LISTS[type]) {
    const value = record[field];
    if (value === undefined || value === null) {
      if (rule.required) errors.push(`${name(field)} is required`);
      continue;
    }
    const problem = rule.check(value);
    if (problem) errors.push(`${name(field)} ${problem}`);
  }
  if (
    type === 'collection' &&
    Number.isInteger(record.current_emi) &&
    Number.isInteger(record.loan_period) &&
    (record.current_emi as number) > (record.loan_period as number)
  ) {
    errors.push(`${name('current_emi')} must not be greater than ${name('loan_period')}`);
  }
  if (!jsonFitsIn(record, MAX_RECORD_BYTES))
    errors.push(`${prefix ? prefix.slice(0, -1) : 'record'} must be at most ${MAX_RECORD_BYTES} bytes as JSON`);
  return errors;
}

/** The record after a partial change: a field set to null is removed (only optional ones can be). */
export function mergeRecord(record: CustomerRecord, changes: CustomerRecord): CustomerRecord {
  const merged: CustomerRecord = { ...record };
  for (const [field, value] of Object.entries(changes)) {
    if (value === null) delete merged[field];
    else merged[field] = value;
  }
  return merged;
}

export const isRecord = isObject;
