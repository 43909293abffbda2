/**
 * A campaign's customers, newest first, a page at a time. The API lists them by page only (no payment
 * status or language filter on this route), so those filters narrow the page shown, and say so.
 */
import { useMemo, useState } from 'preact/hooks';
import { ListView, usePagedList, type PagedList } from '../../components/crud';
import { SelectField } from '../../components/select-field';
import { type Column } from '../../components/ui';
import { customerName, PAYMENT_STATUSES, shortDate, type Customer, type KeyField } from './model';

export type Customers = PagedList<Customer>;

export function useCustomers(campaignId: string): Customers {
  return usePagedList<Customer>(`/campaigns/${campaignId}/customers`, {}, { limit: 25 });
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
          <SelectField
            label="Payment status"
            name="payment_status"
            value={status}
            onChange={setStatus}
            none="Any"
            options={PAYMENT_STATUSES}
          />
        )}
        <SelectField
          label="Language"
          name="language"
          value={language}
          onChange={setLanguage}
          none="Any"
          options={languages}
        />
        <p class="field-hint filter-note">
          The API lists a campaign's customers by page only: these filters narrow the page shown
          {filtering && ` (${shown.length} of its ${rows.length})`}. Starting calls or chats below filters all
          customers.
        </p>
      </div>
      <ListView
        list={customers}
        caption="Customers"
        what="the customers"
        columns={columns}
        rows={shown}
        rowKey={(c) => c.id}
        empty={filtering ? 'No customer of this page matches.' : 'No customer yet: add one or a file below.'}
      />
    </div>
  );
}
