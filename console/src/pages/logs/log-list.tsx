/**
 * The logs, 10 a page as the API pages them, newest first, with its filters as form controls. The
 * filters live in the address (never the token), so going back from a call finds the same list.
 */
import { Link, useSearchParams } from 'wouter-preact';
import { api, type Query } from '../../client/api';
import { ChoiceSelect } from '../../components/choice-select';
import { ListView, type Paged } from '../../components/crud';
import { SelectField } from '../../components/select-field';
import { Field, Form, Page, type Column } from '../../components/ui';
import { useDraft } from '../../components/use-draft';
import { useLoad } from '../../components/use-load';
import { CALL_STATUSES, CHAT_STATUSES, keyOf, seconds, statusClass, when, type LogEntry } from './model';

const FILTERS = [
  'type',
  'status',
  'disposition',
  'phone',
  'from_phone',
  'campaign_id',
  'agent_id',
  'start_time',
  'end_time',
] as const;
type Filter = (typeof FILTERS)[number];
type Filters = Record<Filter, string>;

const filtersOf = (params: URLSearchParams): Filters =>
  Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filters;

export function LogList() {
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const page = Number(params.get('page') ?? '1') || 1;
  const key = FILTERS.map((f) => filters[f]).join('\u0000');
  const logs = useLoad(() => api<Paged<LogEntry>>('GET', '/logs', undefined, { ...filters, page }), [key, page]);
  const show = (next: Partial<Filters>, nextPage = 1) => {
    const query = new URLSearchParams();
    for (const f of FILTERS) if (next[f]) query.set(f, next[f]!);
    if (nextPage > 1) query.set('page', String(nextPage));
    setParams(query);
  };
  const columns: Column<LogEntry>[] = [
    { title: 'When', cell: (e) => when(e.start_time), class: 'nowrap' },
    { title: 'Type', cell: (e) => e.type },
    {
      title: 'Customer',
      cell: (e) => (
        <>
          {e.name} <span class="muted nowrap">{keyOf(e)}</span>
        </>
      ),
    },
    { title: 'To', cell: (e) => e.to, class: 'nowrap' },
    { title: 'Campaign', cell: (e) => e.campaign_name },
    { title: 'Status', cell: (e) => <span class={statusClass(e.status)}>{e.status}</span> },
    { title: 'Disposition', cell: (e) => e.disposition ?? '' },
    { title: 'Duration', cell: (e) => (e.type === 'call' ? seconds(e.duration) : ''), class: 'nowrap' },
    { title: 'Detail', cell: (e) => <DetailLink entry={e} />, class: 'nowrap' },
  ];
  return (
    <Page
      title="Logs"
      actions={
        <button type="button" class="secondary" onClick={logs.reload} disabled={logs.loading}>
          {logs.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <LogFilters key={key} filters={filters} onApply={(next) => show(next)} />
      <Counts filters={filters} round={logs.data} />
      <ListView
        list={logs}
        onPage={(p) => show(filters, p)}
        caption="Calls and chats"
        what="the logs"
        columns={columns}
        rowKey={(e) => e.call_id ?? e.message_id ?? `${e.type}-${e.start_time}-${e.to}`}
        empty={FILTERS.some((f) => filters[f]) ? 'Nothing matches these filters.' : 'No call or chat yet.'}
      />
    </Page>
  );
}

function DetailLink(props: { entry: LogEntry }) {
  const { entry } = props;
  const label = `${entry.name || entry.to}, ${when(entry.start_time)}`;
  if (entry.type === 'call' && entry.call_id)
    return (
      <Link href={`/call/${entry.call_id}`} aria-label={`Open the call with ${label}`}>
        Open call
      </Link>
    );
  if (entry.type === 'chat' && entry.message_id)
    return (
      <Link href={`/chat/${entry.message_id}`} aria-label={`Open the chat with ${label}`}>
        Open chat
      </Link>
    );
  return null;
}

/** How many calls and chats match (the API counts them with `count_only`), read again with the list. */
function Counts(props: { filters: Filters; round: unknown }) {
  const count = (type: string) =>
    api<{ total: number }>('GET', '/logs', undefined, { ...props.filters, type, count_only: true } as Query).then(
      (r) => r.total,
    );
  const types = props.filters.type ? [props.filters.type] : ['call', 'chat'];
  const counts = useLoad(() => Promise.all(types.map(count)), [props.round]);
  if (!counts.data) return null;
  return (
    <p class="count log-counts" role="status">
      {types.map((type, i) => `${counts.data![i]} ${type}${counts.data![i] === 1 ? '' : 's'}`).join(', ')} match.
    </p>
  );
}

/** `2026-05-01T09:30` (a datetime-local field, the operator's time) to ISO 8601, and back. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
function toLocal(iso: string): string {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function LogFilters(props: { filters: Filters; onApply: (filters: Filters) => void }) {
  const { draft, bind, choice } = useDraft<Filters>({
    ...props.filters,
    start_time: toLocal(props.filters.start_time),
    end_time: toLocal(props.filters.end_time),
  });
  const apply = () =>
    props.onApply({
      ...draft,
      status: draft.status.trim(),
      disposition: draft.disposition.trim(),
      phone: draft.phone.trim(),
      from_phone: draft.from_phone.trim(),
      start_time: toIso(draft.start_time),
      end_time: toIso(draft.end_time),
    });
  let statuses = [...CALL_STATUSES, ...CHAT_STATUSES.filter((s) => s !== 'Failed')];
  if (draft.type === 'call') statuses = CALL_STATUSES;
  if (draft.type === 'chat') statuses = CHAT_STATUSES;
  return (
    <Form label="Filter the logs" class="form log-filters" onSubmit={apply}>
      <SelectField
        label="Type"
        {...choice('type')}
        none="Calls and chats"
        options={[
          { value: 'call', label: 'Calls' },
          { value: 'chat', label: 'Chats' },
        ]}
      />
      <Field label="Status">
        <input list="log-statuses" {...bind('status')} />
        <datalist id="log-statuses">
          {statuses.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      </Field>
      <ChoiceSelect label="Campaign" path="/campaigns" none="Any" {...choice('campaign_id')} />
      <ChoiceSelect label="Agent" path="/agents" none="Any" {...choice('agent_id')} />
      <Field label="Disposition">
        <input {...bind('disposition')} />
      </Field>
      <Field label="Customer phone">
        <input type="tel" {...bind('phone')} />
      </Field>
      <Field label="From number">
        <input type="tel" {...bind('from_phone')} />
      </Field>
      <Field label="From">
        <input type="datetime-local" {...bind('start_time')} />
      </Field>
      <Field label="Until">
        <input type="datetime-local" {...bind('end_time')} />
      </Field>
      <div class="filter-buttons">
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={() => props.onApply(filtersOf(new URLSearchParams()))}>
          Clear
        </button>
      </div>
    </Form>
  );
}
