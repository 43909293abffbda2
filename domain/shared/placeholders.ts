/**
 * `{{field}}` templates, shared by call scripts and chat templates. Filling never fails: a missing
 * field becomes an empty string, because a half-personalized message is better than `undefined` read
 * aloud to a customer; `unknownPlaceholders` lets callers refuse such templates up front instead.
 */
import { formatIndianNumber, isIsoDate, parseAmount } from './format';

export type TemplateRecord = Readonly<Record<string, unknown>>;

export type FillOptions = {
  /** How a `YYYY-MM-DD` value reads; by default it is kept as written. */
  formatDate?: (isoDate: string) => string;
};

/** Spaces inside the braces are allowed: `{{ first_name }}` names `first_name`. */
const placeholderPattern = /\{\{([^{}]*)\}\}/g;

/** Field names in order of first use, each once. Empty braces name nothing. */
export function placeholdersOf(template: string): string[] {
  const names = [...template.matchAll(placeholderPattern)]
    .map((match) => (match[1] ?? '').trim())
    .filter((name) => name !== '');
  return [...new Set(names)];
}

export function unknownPlaceholders(template: string, allowedFields: Iterable<string>): string[] {
  const allowed = new Set(allowedFields);
  return placeholdersOf(template).filter((name) => !allowed.has(name));
}

/** Identifiers and phone numbers are digits to read as written, never amounts to group. */
const identifierField = /(^id$|_id$|phone|mobile|number|pin|zip|code|year|account)/i;

function formatValue(field: string, value: unknown, options: FillOptions): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return '';
    return identifierField.test(field) ? String(value) : formatIndianNumber(value);
  }
  if (typeof value === 'string') {
    const amount = /amount/i.test(field) ? parseAmount(value) : undefined;
    if (amount !== undefined) return formatIndianNumber(amount);
    const trimmed = value.trim();
    return options.formatDate && isIsoDate(trimmed) ? options.formatDate(trimmed) : value;
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value))
    return value
      .map((item) => formatValue(field, item, options))
      .filter((item) => item !== '')
      .join(', ');
  return '';
}

/** Exact field name first; `{{First_Name}}` still finds `first_name`, as template authors vary. */
function lookup(record: TemplateRecord, field: string): unknown {
  if (Object.hasOwn(record, field)) return record[field];
  const lower = field.toLowerCase();
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

export function fillTemplate(template: string, record: TemplateRecord, options: FillOptions = {}): string {
  return template.replace(placeholderPattern, (_whole, inner: string) => {
    const field = inner.trim();
    return field === '' ? '' : formatValue(field, lookup(record, field), options);
  });
}
