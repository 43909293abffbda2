/**
 * A campaign's customers, newest first, a page at a time. The API lists them by page only (no payment
 * status or language filter on this route), so those filters narrow the page shown, and say so.
 */
import { useMemo, useState } from 'preact/hooks';
import { api } from '../../client/api';
import { Problem } from '../../components/problem';
import { Field, Loading, Pager, Table, type Column } from '../../components/ui';
import { useLoad, type Loaded } from '../../components/use-load';
import { customerName, PAYMENT_STATUSES, shortDate, type Customer, type KeyField, type Paged } from './model';

const PER_PAGE = 25;

export type Customers = Loaded<Paged<Customer>> & { page: number; setPage: (page: number) => void };

export function useCustomers(campaignId: string): Customers {
  const [page, setPage] = useState(1);
  const loaded = useLoad(
    () => api<Paged<Customer>>('GET', `/campaigns/${campaignId}/customers`, undefined, { page, limit: PER_PAGE }),
    [campaignId, page],
  );
  return { ...loaded, page, setPage };
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

export function CustomerList(props: { customers: Customers; keyField: KeyField }) {
  const { customers, keyField } = props;
  const [status, setStatus] = useState('');
  const [language, setLanguage] = useState('');
  const rows = customers.data?.data ?? [];
  const languages = useMemo(
    () => [...new Set(rows.map((c) => text(c.data.language).toLowerCase()).filter(Boolean))].sort(),
    [rows],
  );
  const shown = rows.filter(
    (c) =>
      (!status || c.data.payment_status === status) && (!language || text(c.data.language).toLowerCase() === language),
  );
  const collection = keyField === 'loan_id';
  const columns: Column<Customer>[] = [
    { title: collection ? 'Loan id' : 'Lead id', cell: (c) => <code>{c.id}</code> },
    { title: 'Name', cell: (c) => customerName(c.data) },
    { title: 'Phone', cell: (c) => text(c.data.phone_number), class: 'nowrap' },
    ...(collection
      ? [
          { title: 'Payment', cell: (c: Customer) => text(c.data.payment_status) },
          { title: 'EMI due', cell: (c: Customer) => text(c.data.emi_due_date), class: 'nowrap' },
        ]
      : [{ title: 'Lead date', cell: (c: Customer) => text(c.data.lead_date), class: 'nowrap' }]),
    { title: 'Language', cell: (c) => text(c.data.language) },
    { title: 'Added', cell: (c) => shortDate(c.createdAt), class: 'nowrap' },
  ];
  const filtering = status !== '' || language !== '';
  return (
    <div class="customers">
      <div class="form" role="group" aria-label="Filter the customers shown">
        {collection && (
          <Field label="Payment status">
            <select name="payment_status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">Any</option>
              {PAYMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field label="Language">
          <select name="language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
            <option value="">Any</option>
            {languages.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </Field>
        <p class="field-hint filter-note">
          The API lists a campaign's customers by page only: these filters narrow the page shown
          {filtering && ` (${shown.length} of its ${rows.length})`}. Starting calls or chats below filters all
          customers.
        </p>
      </div>
      <Problem error={customers.error} />
      {customers.loading && !customers.data && <Loading what="the customers" />}
      {customers.data && (
        <>
          <Table
            caption="Customers"
            columns={columns}
            rows={shown}
            rowKey={(c) => c.id}
            empty={filtering ? 'No customer of this page matches.' : 'No customer yet: add one or a file below.'}
          />
          <Pager pagination={customers.data.pagination} onPage={customers.setPage} />
        </>
      )}
    </div>
  );
}
