/** The campaigns of the organization, a page at a time, filtered by status and name; and a new one. */
import { useState } from 'preact/hooks';
import { Link, useSearchParams } from 'wouter-preact';
import { api } from '../../client/api';
import { ListView, type Paged } from '../../components/crud';
import { SelectField } from '../../components/select-field';
import { Field, Form, Page, type Column } from '../../components/ui';
import { useLoad } from '../../components/use-load';
import { CampaignActions, StatusBadge } from './campaign-actions';
import { CreateCampaign } from './create-campaign';
import { shortDate, type Campaign } from './model';

const PER_PAGE = 20;

export function CampaignList() {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1') || 1;
  const status = params.get('status') ?? '';
  const search = params.get('search') ?? '';
  const campaigns = useLoad(
    () => api<Paged<Campaign>>('GET', '/campaigns', undefined, { page, limit: PER_PAGE, status, search }),
    [page, status, search],
  );
  const show = (changes: Record<string, string>) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [name, value] of Object.entries(changes)) {
        if (value) next.set(name, value);
        else next.delete(name);
      }
      return next;
    });

  const columns: Column<Campaign>[] = [
    { title: 'Name', cell: (c) => <Link href={`/${c.id}`}>{c.name}</Link> },
    { title: 'Type', cell: (c) => c.campaignType.toUpperCase() },
    { title: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
    { title: 'Created', cell: (c) => shortDate(c.createdAt), class: 'nowrap' },
    { title: 'Actions', cell: (c) => <CampaignActions campaign={c} onChanged={campaigns.reload} /> },
  ];

  return (
    <Page title="Campaigns">
      <CreateCampaign />
      <h2>All campaigns</h2>
      <CampaignFilters status={status} search={search} onChange={(filters) => show({ ...filters, page: '' })} />
      <ListView
        list={campaigns}
        onPage={(p) => show({ page: String(p) })}
        caption="Campaigns"
        what="the campaigns"
        columns={columns}
        rowKey={(c) => c.id}
        empty={status || search ? 'No campaign matches these filters.' : 'No campaign yet: create one above.'}
      />
    </Page>
  );
}

function CampaignFilters(props: {
  status: string;
  search: string;
  onChange: (filters: { status: string; search: string }) => void;
}) {
  const [search, setSearch] = useState(props.search);
  return (
    <Form label="Filter campaigns" onSubmit={() => props.onChange({ status: props.status, search: search.trim() })}>
      <SelectField
        label="Status"
        name="status"
        value={props.status}
        onChange={(status) => props.onChange({ status, search: search.trim() })}
        none="Any"
        options={[
          { value: 'active', label: 'Active' },
          { value: 'paused', label: 'Paused' },
        ]}
      />
      <Field label="Name contains">
        <input type="search" name="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="secondary">
        Search
      </button>
    </Form>
  );
}
