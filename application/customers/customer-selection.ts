/**
 * Which customers of a campaign an initiate request (calls or chats, spec 4.11) is for: `ids`,
 * `exclude_ids`, `payment_status`, `language` and `custom` filters, all combined with AND, then
 * `limit`. Indexed fields are filtered in the read store; `custom` (exact match on any record field)
 * on what it returns, and `exclude_ids` in the store or on what it returns. Customers come in the
 * order they were added.
 */
import { languageKey } from '../../domain/customers/keys';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { Condition, ReadCollection } from '../ports/read-store';

export type CustomerFilters = {
  ids?: string[];
  exclude_ids?: string[];
  payment_status?: string | string[];
  language?: string | string[];
  custom?: Record<string, string | string[]>;
};

function list(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}
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
  if (languages)
    where.language = oneOf([...new Set(languages.flatMap((l) => [l.trim().toLowerCase(), languageKey(l) ?? l]))]);
  const sort = { field: 'addedSeq', order: 'asc' } as const;
  const excluded = new Set(filters.exclude_ids ?? []);
  const custom = Object.entries(filters.custom ?? {}).map(([field, value]) => [field, new Set(list(value))] as const);
  if (custom.length === 0 && limit !== undefined) {
    // Every filter runs in the read store: count the matches there and read only the documents
    // selected (of a campaign's 100,000 customers, 16,000 may match and 10,000 be selected).
    if (filters.ids) where.customerId = oneOf(filters.ids.filter((id) => !excluded.has(id)));
    const outside = filters.ids ? [] : [...excluded];
    const [count, excludedMatches, found] = await Promise.all([
      customers.count({ where }),
      outside.length > 0 ? customers.count({ where: { ...where, customerId: oneOf(outside) } }) : 0,
      customers.find({ where, sort, limit: limit + outside.length }),
    ]);
    return {
      totalMatched: count - excludedMatches,
      selected: found.filter((c) => !excluded.has(c.customerId)).slice(0, limit),
    };
  }
  const found = await customers.find({ where, sort });
  const matched = found.filter(
    (c) => !excluded.has(c.customerId) && custom.every(([field, allowed]) => allowed.has(String(c.data[field] ?? ''))),
  );
  return { totalMatched: matched.length, selected: limit === undefined ? matched : matched.slice(0, limit) };
}
