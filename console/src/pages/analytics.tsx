/**
 * Analytics: a campaign's funnel, daily volumes and talk time, the agents' figures and speech usage
 * (docs/analytics.md) over a time range and for a campaign, drawn with Chart.js and given as tables too;
 * and a live count of the organization's events, read from the live feed as they are appended.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, authHeaders } from '../client/api';
import { ChartFigure } from '../components/chart';
import { followLiveFeed, type FeedStatus } from '../components/live-feed';
import { ErrorNote, Field, Form, Loading, Page } from '../components/ui';
import { useLoad, type Loaded } from '../components/use-load';
import './analytics.css';

type Envelope<T> = { data: T };
type CallFigures = {
  calls: number;
  ended: number;
  completed: number;
  talk_seconds: number;
  mean_duration_seconds: number | null;
  completed_share: number | null;
};
type Funnel = {
  campaign_id: string;
  customers: number;
  payment_status: Record<string, number>;
  calls: CallFigures & { contacted: number; no_contact: number; failed: number };
  chats: { chats: number; sent: number; delivered: number; read: number; failed: number; replied: number };
};
type Day = CallFigures & { date: string; chats: number };
type AgentRow = CallFigures & { agent_id: string };
type SpeechFigures = { requests: number; characters: number; audio_seconds: number };
type SpeechUsage = SpeechFigures & { by_day: (SpeechFigures & { date: string })[] };
type Named = { id: string; name: string };

/** The filters as the API reads them: ISO instants (from the form's local times) and a campaign id. */
type Filters = { start_time?: string; end_time?: string; campaign_id?: string };

const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
const minutes = (seconds: number) => Math.round(seconds / 6) / 10;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const sum = <T,>(rows: readonly T[], figure: (row: T) => number) => rows.reduce((n, row) => n + figure(row), 0);
const envelope = <T,>(path: string, query?: Filters) =>
  api<Envelope<T>>('GET', path, undefined, query).then((r) => r.data);

export default function AnalyticsPage() {
  const [filters, setFilters] = useState<Filters>({});
  const range = { start_time: filters.start_time, end_time: filters.end_time };
  const campaigns = useLoad(() => api<Envelope<Named[]>>('GET', '/campaigns', undefined, { limit: 100 }), []);
  const agents = useLoad(() => api<Envelope<Named[]>>('GET', '/agents', undefined, { limit: 100 }), []);
  const funnel = useLoad(
    () =>
      filters.campaign_id
        ? envelope<Funnel>(`/analytics/campaigns/${encodeURIComponent(filters.campaign_id)}`, range)
        : Promise.resolve(undefined),
    [filters],
  );
  const daily = useLoad(() => envelope<Day[]>('/analytics/daily', filters), [filters]);
  const perAgent = useLoad(() => envelope<AgentRow[]>('/analytics/agents', filters), [filters]);
  const speech = useLoad(() => envelope<SpeechUsage>('/analytics/speech', range), [filters]);
  const reload = () => [funnel, daily, perAgent, speech].forEach((l) => l.reload());
  const agentName = (id: string) => agents.data?.data.find((a) => a.id === id)?.name ?? id;

  return (
    <Page
      title="Analytics"
      actions={
        <button type="button" class="secondary" onClick={reload}>
          Refresh
        </button>
      }
    >
      <LiveCounter />
      <FilterForm campaigns={campaigns.data?.data} onApply={setFilters} />
      <div class="analytics-grid">
        <Section loaded={funnel} what="the funnel">
          {(data) => (data ? <FunnelChart funnel={data} /> : <p class="empty">Choose a campaign to see its funnel.</p>)}
        </Section>
        <Section loaded={daily} what="the daily figures">
          {(days) => <DailyChart days={days} />}
        </Section>
        <Section loaded={perAgent} what="the agents' figures">
          {(rows) => <AgentsChart rows={rows} name={agentName} />}
        </Section>
        <Section loaded={speech} what="speech usage">
          {(usage) => <SpeechChart usage={usage} />}
        </Section>
      </div>
    </Page>
  );
}

function FilterForm(props: { campaigns: Named[] | undefined; onApply: (filters: Filters) => void }) {
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [campaign, setCampaign] = useState('');
  const apply = () =>
    props.onApply({ start_time: instant(start), end_time: instant(end), campaign_id: campaign || undefined });
  return (
    <Form label="Time range and campaign" onSubmit={apply}>
      <Field label="From" hint="Your local time">
        <input type="datetime-local" name="start_time" value={start} onInput={(e) => setStart(e.currentTarget.value)} />
      </Field>
      <Field label="To" hint="Your local time">
        <input type="datetime-local" name="end_time" value={end} onInput={(e) => setEnd(e.currentTarget.value)} />
      </Field>
      {props.campaigns ? (
        <Field label="Campaign">
          <select name="campaign_id" value={campaign} onChange={(e) => setCampaign(e.currentTarget.value)}>
            <option value="">All campaigns</option>
            {props.campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
      ) : (
        <Field label="Campaign id" hint="Empty: all campaigns">
          <input name="campaign_id" value={campaign} onInput={(e) => setCampaign(e.currentTarget.value.trim())} />
        </Field>
      )}
      <button type="submit">Show</button>
    </Form>
  );
}

/** A chart's place: its loading note, its error, or the chart. */
function Section<T>(props: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  const { data, error, loading } = props.loaded;
  return (
    <section class="analytics-section">
      <ErrorNote error={error} />
      {loading && data === undefined && !error ? <Loading what={props.what} /> : null}
      {!error && !(loading && data === undefined) ? props.children(data as T) : null}
    </section>
  );
}

function FunnelChart(props: { funnel: Funnel }) {
  const { calls, chats, customers } = props.funnel;
  const stages: [string, number][] = [
    ['Customers', customers],
    ['Calls placed', calls.calls],
    ['Calls answered', calls.contacted],
    ['Calls completed', calls.completed],
    ['No contact', calls.no_contact],
    ['Calls failed', calls.failed],
    ['Chats', chats.chats],
    ['Chats sent', chats.sent],
    ['Delivered', chats.delivered],
    ['Read', chats.read],
    ['Replied', chats.replied],
  ];
  return (
    <ChartFigure
      title="Campaign funnel"
      summary={`${plural(customers, 'customer')}; ${plural(calls.calls, 'call')} placed, ${calls.contacted} answered, ${calls.completed} completed; ${plural(chats.chats, 'chat')}, ${chats.read} read, ${chats.replied} replied.`}
      labelTitle="Stage"
      labels={stages.map(([label]) => label)}
      series={[{ label: 'Count', values: stages.map(([, n]) => n) }]}
      units={{ bars: 'Count' }}
      horizontal
    />
  );
}

function DailyChart(props: { days: Day[] }) {
  const { days } = props;
  if (days.length === 0) return <NoFigures title="Daily volumes and talk time" what="calls or chats" />;
  return (
    <ChartFigure
      title="Daily volumes and talk time"
      summary={`${plural(days.length, 'day')} from ${days[0]!.date} to ${days[days.length - 1]!.date}: ${plural(
        sum(days, (d) => d.calls),
        'call',
      )}, ${sum(days, (d) => d.completed)} completed, ${plural(
        sum(days, (d) => d.chats),
        'chat',
      )}, ${minutes(sum(days, (d) => d.talk_seconds))} minutes of talk.`}
      labelTitle="Day (UTC)"
      labels={days.map((d) => d.date)}
      series={[
        { label: 'Calls', values: days.map((d) => d.calls) },
        { label: 'Completed calls', values: days.map((d) => d.completed) },
        { label: 'Chats', values: days.map((d) => d.chats) },
        { label: 'Talk time', values: days.map((d) => minutes(d.talk_seconds)), line: true },
      ]}
      units={{ bars: 'Calls and chats', line: 'minutes' }}
    />
  );
}

function AgentsChart(props: { rows: AgentRow[]; name: (id: string) => string }) {
  const { rows } = props;
  if (rows.length === 0) return <NoFigures title="Agents" what="calls by an agent" />;
  return (
    <ChartFigure
      title="Agents"
      summary={`${plural(rows.length, 'agent')} made ${plural(
        sum(rows, (r) => r.calls),
        'call',
      )}, ${sum(rows, (r) => r.completed)} of them completed.`}
      labelTitle="Agent"
      labels={rows.map((r) => props.name(r.agent_id))}
      series={[
        { label: 'Calls', values: rows.map((r) => r.calls) },
        { label: 'Completed calls', values: rows.map((r) => r.completed) },
        { label: 'Talk time', values: rows.map((r) => minutes(r.talk_seconds)), line: true },
      ]}
      units={{ bars: 'Calls', line: 'minutes' }}
      horizontal
    />
  );
}

function SpeechChart(props: { usage: SpeechUsage }) {
  const { usage } = props;
  if (usage.by_day.length === 0) return <NoFigures title="Speech usage" what="speech requests" />;
  return (
    <ChartFigure
      title="Speech usage"
      summary={`${plural(usage.requests, 'request')}, ${plural(usage.characters, 'character')} spoken, ${plural(Math.round(usage.audio_seconds), 'second')} of audio over ${plural(usage.by_day.length, 'day')}.`}
      labelTitle="Day (UTC)"
      labels={usage.by_day.map((d) => d.date)}
      series={[
        { label: 'Requests', values: usage.by_day.map((d) => d.requests) },
        { label: 'Audio', values: usage.by_day.map((d) => Math.round(d.audio_seconds * 10) / 10), line: true },
      ]}
      units={{ bars: 'Requests', line: 'seconds' }}
    />
  );
}

function NoFigures(props: { title: string; what: string }) {
  return (
    <>
      <h2>{props.title}</h2>
      <p class="empty">No {props.what} in this range.</p>
    </>
  );
}

type Recent = { id: string; type: string; stream: string };

function statusText(status: FeedStatus): string {
  switch (status.state) {
    case 'connecting':
      return 'Connecting…';
    case 'open':
      return 'Connected';
    case 'reconnecting':
      return `Disconnected: connecting again in ${Math.ceil(status.inMs / 1000)} s, from the last event received`;
    case 'stopped':
      return status.reason === 'closed' ? 'Closed' : `Stopped: ${status.reason}`;
  }
}

/** The organization's events as they are appended: how many since the page opened, and the latest. */
function LiveCounter() {
  const [count, setCount] = useState(0);
  const [recent, setRecent] = useState<Recent[]>([]);
  const [status, setStatus] = useState<FeedStatus>({ state: 'connecting' });
  useEffect(() => {
    const stop = new AbortController();
    void followLiveFeed({
      url: '/api/v1/events/live',
      headers: authHeaders,
      signal: stop.signal,
      onStatus: setStatus,
      onMessage: (message) => {
        let stream = '';
        try {
          stream = String((JSON.parse(message.data) as { stream?: unknown }).stream ?? '');
        } catch {
          // a message that is not the feed's JSON still counts
        }
        setCount((n) => n + 1);
        setRecent((list) => [{ id: message.id, type: message.event, stream }, ...list].slice(0, 5));
      },
    });
    return () => stop.abort();
  }, []);
  return (
    <section class="card live-counter" aria-labelledby="live-title">
      <h2 id="live-title">Live events</h2>
      <p>
        <output class="live-count" aria-live="polite" aria-label="Events since this page opened">
          {count}
        </output>{' '}
        {count === 1 ? 'event' : 'events'} since this page opened
      </p>
      <p class="live-status" role="status">
        {statusText(status)}
      </p>
      {recent.length > 0 && (
        <ul class="live-recent" aria-label="Latest events">
          {recent.map((e) => (
            <li key={e.id}>
              <strong>{e.type}</strong> <span class="live-stream">{e.stream}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
