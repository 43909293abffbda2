/**
 * Which customers of a campaign an initiate request (calls or chats, spec 4.11) is for: `ids`,
 * `exclude_ids`, `payment_status`, `language` and `custom` filters, all combined with AND, then
 * `limit`. Indexed fields are filtered in the read store; `exclude_ids` and `custom` (exact match on
 * any record field) on what it returns. Customers come in the order they were added.
 */
import { languageKey, type CustomerDocument } from '../../projections/customers/customers';
import type { Condition, ReadCollection } from '../ports/read-store';

export type CustomerFilters = {
  ids?: string[];
  exclude_ids?: string[];
  payment_status?: string | string[];
  language?: string | string[];
  custom?: Record<string, string | string[]>;
};

const list = (value: string | string[] | undefined): string[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);
const oneOf = (values: string[]): Condition => (values.length === 1 ? values[0]! : { in: values });

export async function selectCustomers(
  customers: ReadCollection<CustomerDocument>,
  scope: { organizationId: string; campaignId: string },
  filters: CustomerFilters = {},
  limit?: number,
): Promise<{ totalMatched: number; selected: CustomerDocument[] }> {
  const where: Record<string, Condition> = { organizationId: scope.organizationId, campaignId: scope.campaignId };
  if (filters.ids) where.customerId = oneOf(filters.ids);
  const statuses = list(filters.payment_status);
  if (statuses) where.payment_status = oneOf(statuses);
  const languages = list(filters.language);
  // Customers' languages are stored as codes where the word names one (Hindi → hi); filters may use either.
  if (languages) where.language = oneOf([...new Set(languages.flatMap((l) => [l.trim().toLowerCase(), languageKey(l) ?? l]))]);
  const found = await customers.find({ where, sort: { field: 'addedSeq', order: 'asc' } });
  const excluded = new Set(filters.exclude_ids ?? []);
  const custom = Object.entries(filters.custom ?? {}).map(([field, value]) => [field, new Set(list(value))] as const);
  const matched = found.filter((c) => !excluded.has(c.customerId) && custom.every(([field, allowed]) => allowed.has(String(c.data[field] ?? ''))));
  return { totalMatched: matched.length, selected: limit === undefined ? matched : matched.slice(0, limit) };
}
