/**
 * Phone numbers: the organization's own, and the provider's inventory to search and buy from. Each
 * number of a purchase succeeds or fails on its own; the page lists the failures with the API's reason.
 * The API has no route to release a number, so the page offers none.
 */
import { useState } from 'preact/hooks';
import { api, ApiError } from '../client/api';
import { ListView, Notice, SectionHeader, usePagedList, when } from '../components/crud';
import { ErrorNote, Field, Form, Page, Pager, Table, type Column } from '../components/ui';
import { useAction } from '../components/use-load';
import './settings.css';

type OwnedNumber = {
  number: string;
  provider: string;
  country_iso: string;
  sms_enabled: boolean;
  voice_enabled: boolean;
  purchasedAt: string;
};

type AvailableNumber = { number: string; sms_enabled: boolean; voice_enabled: boolean };

/** The search's answer: its own paging fields, not the lists' `pagination`. */
type SearchAnswer = { data: AvailableNumber[]; page: number; totalPages: number; totalCount: number };

type Purchase = { number: string; success: boolean; error: string | null };

type SearchQuery = { provider: string; country_iso: string; prefix: string };

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

export default function NumbersPage() {
  const owned = usePagedList<OwnedNumber>('/numbers');
  const columns: Column<OwnedNumber>[] = [
    { title: 'Number', cell: (n) => n.number },
    { title: 'Provider', cell: (n) => n.provider, class: 'wide-only' },
    { title: 'Country', cell: (n) => n.country_iso },
    { title: 'Voice', cell: (n) => yesNo(n.voice_enabled) },
    { title: 'SMS', cell: (n) => yesNo(n.sms_enabled) },
    { title: 'Bought', cell: (n) => when(n.purchasedAt), class: 'wide-only' },
  ];
  return (
    <Page title="Numbers">
      <section class="settings-section" aria-labelledby="owned-heading">
        <SectionHeader id="owned-heading" title="Your numbers" />
        <p class="api-note">A number cannot be released from here: the API has no route for it.</p>
        <ListView
          list={owned}
          caption="Your numbers"
          columns={columns}
          rowKey={(n) => n.number}
          empty="The organization has no numbers yet: search the inventory below and buy some."
        />
      </section>
      <Inventory onBought={owned.reload} />
    </Page>
  );
}

function Inventory(props: { onBought: () => void }) {
  const [form, setForm] = useState<SearchQuery>({ provider: 'builtin', country_iso: 'IN', prefix: '' });
  const [query, setQuery] = useState<SearchQuery | null>(null);
  const [results, setResults] = useState<SearchAnswer | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<{ bought: string[]; failed: Error | undefined } | null>(null);
  const search = useAction(async (q: SearchQuery, page: number) => {
    setResults(null);
    const answer = await api<SearchAnswer>('GET', '/numbers/search', undefined, { ...q, page, limit: 10 });
    setQuery(q);
    setResults(answer);
  });
  const buy = useAction(async () => {
    const answer = await api<{ data: Purchase[] }>(
      'POST',
      '/numbers/buyNumbers',
      chosen.map((number) => ({ number, provider: query?.provider })),
    );
    const bought = answer.data.filter((p) => p.success).map((p) => p.number);
    const failures = answer.data.filter((p) => !p.success);
    setOutcome({
      bought,
      failed:
        failures.length > 0
          ? new ApiError(200, `${failures.length} number(s) could not be bought`, {
              errors: failures.map((p) => `${p.number}: ${p.error ?? 'refused'}`),
            })
          : undefined,
    });
    setChosen([]);
    if (results) setResults({ ...results, data: results.data.filter((n) => !bought.includes(n.number)) });
    if (bought.length > 0) props.onBought();
  });
  const toggle = (number: string, on: boolean) =>
    setChosen((now) => (on ? [...now, number] : now.filter((n) => n !== number)));
  const columns: Column<AvailableNumber>[] = [
    {
      title: 'Choose',
      cell: (n) => (
        <input
          type="checkbox"
          aria-label={`Choose ${n.number}`}
          checked={chosen.includes(n.number)}
          onChange={(e) => toggle(n.number, e.currentTarget.checked)}
        />
      ),
    },
    { title: 'Number', cell: (n) => n.number },
    { title: 'Voice', cell: (n) => yesNo(n.voice_enabled) },
    { title: 'SMS', cell: (n) => yesNo(n.sms_enabled) },
  ];
  const set = (field: keyof SearchQuery) => (e: { currentTarget: HTMLInputElement }) =>
    setForm({ ...form, [field]: e.currentTarget.value });
  return (
    <section class="settings-section" aria-labelledby="inventory-heading">
      <SectionHeader id="inventory-heading" title="Buy numbers" />
      <div role="search">
        <Form
          label="Search available numbers"
          onSubmit={() => {
            setOutcome(null);
            setChosen([]);
            void search.run(form, 1);
          }}
        >
          <Field label="Provider">
            <input required value={form.provider} onInput={set('provider')} />
          </Field>
          <Field label="Country" hint="Two letters, for example IN">
            <input required maxLength={2} value={form.country_iso} onInput={set('country_iso')} />
          </Field>
          <Field label="Starts with" hint="Digits after the country code">
            <input inputMode="numeric" maxLength={14} value={form.prefix} onInput={set('prefix')} />
          </Field>
          <button type="submit" disabled={search.busy}>
            {search.busy ? 'Searching…' : 'Search numbers'}
          </button>
          <ErrorNote error={search.error} />
        </Form>
      </div>
      {results && query && (
        <>
          <Table
            caption="Available numbers"
            columns={columns}
            rows={results.data}
            rowKey={(n) => n.number}
            empty="Every number of this page was bought."
          />
          <Pager
            pagination={{ page: results.page, total_pages: results.totalPages, total: results.totalCount }}
            onPage={(page) => void search.run(query, page)}
          />
          <div class="buttons">
            <button type="button" disabled={chosen.length === 0 || buy.busy} onClick={() => void buy.run()}>
              {buy.busy ? 'Buying…' : `Buy ${chosen.length} chosen number${chosen.length === 1 ? '' : 's'}`}
            </button>
          </div>
        </>
      )}
      <ErrorNote error={buy.error ?? outcome?.failed} />
      {outcome && outcome.bought.length > 0 && <Notice>Bought {outcome.bought.join(', ')}.</Notice>}
    </section>
  );
}
