/**
 * Audit trail (docs/audit.md): the organization's events with their filters, any stream's
 * history page by page (by revision), and the stream's state at a chosen instant as its decider folds
 * it. A stream is typed, or picked from the recent events; its id stays in the address (`?stream=`).
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import { ErrorNote, Field, Form, Loading, Page, Table, type Column } from '../components/ui';
import { useLoad } from '../components/use-load';
import './audit.css';

type AuditEvent = {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: { actor: string; requestId: string; organizationId: string | null };
  recorded_at: string;
};
type EventPage = { data: AuditEvent[]; next_after: number; has_more: boolean };
type StateAt = { stream: string; at: string; revision: number; state: unknown };
type EventFilters = { type?: string; actor?: string; request_id?: string; start_time?: string; end_time?: string };

const PAGE_SIZE = 20;

/** An instant as a datetime-local input shows it: the operator's local time, to the millisecond. */
function localInput(iso: string | Date): string {
  const date = new Date(iso);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
  );
}

const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
const when = (iso: string) => new Date(iso).toLocaleString();

function streamInAddress(): string {
  return new URLSearchParams(window.location.search).get('stream') ?? '';
}

export default function AuditPage() {
  const [stream, setStream] = useState(streamInAddress);
  const open = (id: string) => {
    setStream(id);
    const url = new URL(window.location.href);
    if (id) url.searchParams.set('stream', id);
    else url.searchParams.delete('stream');
    window.history.replaceState(window.history.state, '', url);
  };
  return (
    <Page title="Audit trail">
      <StreamPicker key={stream} stream={stream} onOpen={open} />
      {stream && <StreamHistory key={stream} stream={stream} />}
      <RecentEvents onOpen={open} />
    </Page>
  );
}

function StreamPicker(props: { stream: string; onOpen: (stream: string) => void }) {
  const [typed, setTyped] = useState(props.stream);
  return (
    <Form label="Stream" onSubmit={() => props.onOpen(typed.trim())}>
      <Field label="Stream id" hint="For example campaign-…, call-…, customer-…; or pick one from the events below">
        <input
          name="stream"
          class="stream-input"
          required
          autoComplete="off"
          spellcheck={false}
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
      </Field>
      <button type="submit">Show history</button>
    </Form>
  );
}

/** Cursor paging: the `after` of the page shown, and those of the pages before it to go back to. */
function useCursor() {
  const [afters, setAfters] = useState<number[]>([-1]);
  const after = afters[afters.length - 1]!;
  return {
    after,
    first: afters.length === 1,
    next: (nextAfter: number) => setAfters((list) => [...list, nextAfter]),
    previous: () => setAfters((list) => (list.length > 1 ? list.slice(0, -1) : list)),
    restart: () => setAfters([-1]),
  };
}

function CursorPager(props: { cursor: ReturnType<typeof useCursor>; page: EventPage | undefined; label: string }) {
  const { cursor, page } = props;
  if (!page || (cursor.first && !page.has_more)) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="secondary" disabled={cursor.first} onClick={cursor.previous}>
        Previous
      </button>
      <button type="button" class="secondary" disabled={!page.has_more} onClick={() => cursor.next(page.next_after)}>
        Next
      </button>
    </nav>
  );
}

function Json(props: { value: unknown; label: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={props.label}>
      {JSON.stringify(props.value, null, 2)}
    </pre>
  );
}

function StreamHistory(props: { stream: string }) {
  const { stream } = props;
  const cursor = useCursor();
  const [at, setAt] = useState(() => localInput(new Date()));
  const [asked, setAsked] = useState<string | undefined>(undefined);
  const path = encodeURIComponent(stream);
  const history = useLoad(
    () => api<EventPage>('GET', `/audit/streams/${path}`, undefined, { after: cursor.after, limit: PAGE_SIZE }),
    [stream, cursor.after],
  );
  const state = useLoad(
    () =>
      asked
        ? api<{ data: StateAt }>('GET', `/audit/state/${path}`, undefined, { at: asked }).then((r) => r.data)
        : Promise.resolve(undefined),
    [stream, asked],
  );
  const showStateAt = (iso: string) => {
    setAt(localInput(iso));
    setAsked(iso);
  };
  const columns: Column<AuditEvent>[] = [
    { title: 'Revision', cell: (e) => e.revision, class: 'numeric' },
    { title: 'Event', cell: (e) => <strong>{e.type}</strong> },
    { title: 'Recorded', cell: (e) => <time dateTime={e.recorded_at}>{when(e.recorded_at)}</time> },
    { title: 'By', cell: (e) => e.metadata.actor },
    {
      title: 'Data',
      cell: (e) => (
        <details>
          <summary>Show</summary>
          <Json value={{ data: e.data, metadata: e.metadata }} label={`Event ${e.revision} as JSON`} />
        </details>
      ),
    },
    {
      title: 'State',
      cell: (e) => (
        <button type="button" class="secondary" onClick={() => showStateAt(e.recorded_at)}>
          State after revision {e.revision}
        </button>
      ),
    },
  ];
  return (
    <section class="audit-stream" aria-labelledby="stream-title">
      <h2 id="stream-title">
        History of <code>{stream}</code>
      </h2>
      <ErrorNote error={history.error} />
      {history.loading && !history.data ? <Loading what="the history" /> : null}
      {history.data && !history.error && (
        <>
          <Table
            caption={`History of ${stream}`}
            columns={columns}
            rows={history.data.data}
            rowKey={(e) => e.event_id}
            empty="No event on this page."
          />
          <CursorPager cursor={cursor} page={history.data} label="Pages of the history" />
        </>
      )}
      <h2 id="state-title">State at a time</h2>
      <Form
        label="State at a time"
        onSubmit={() => {
          const iso = instant(at);
          if (iso) setAsked(iso);
        }}
      >
        <Field label="At" hint="Your local time, to the millisecond">
          <input
            type="datetime-local"
            name="at"
            step="0.001"
            required
            value={at}
            onInput={(e) => setAt(e.currentTarget.value)}
          />
        </Field>
        <button type="submit">Show state</button>
        <button type="button" class="secondary" onClick={() => showStateAt(new Date().toISOString())}>
          State now
        </button>
      </Form>
      <ErrorNote error={state.error} />
      {state.loading && asked ? <Loading what="the state" /> : null}
      {state.data && !state.error && (
        <div class="audit-state" aria-labelledby="state-title">
          <p>
            At <time dateTime={state.data.at}>{when(state.data.at)}</time> ({state.data.at}), after revision{' '}
            {state.data.revision}:
          </p>
          <Json value={state.data.state} label={`State of ${stream} as JSON`} />
        </div>
      )}
    </section>
  );
}

function RecentEvents(props: { onOpen: (stream: string) => void }) {
  const [filters, setFilters] = useState<EventFilters>({});
  const cursor = useCursor();
  const events = useLoad(
    () => api<EventPage>('GET', '/audit/events', undefined, { ...filters, after: cursor.after, limit: PAGE_SIZE }),
    [filters, cursor.after],
  );
  const columns: Column<AuditEvent>[] = [
    { title: 'Recorded', cell: (e) => <time dateTime={e.recorded_at}>{when(e.recorded_at)}</time> },
    { title: 'Event', cell: (e) => <strong>{e.type}</strong> },
    {
      title: 'Stream',
      cell: (e) => (
        <button type="button" class="link" onClick={() => props.onOpen(e.stream_id)}>
          <span class="visually-hidden">History of </span>
          {e.stream_id}
        </button>
      ),
    },
    { title: 'Revision', cell: (e) => e.revision, class: 'numeric' },
    { title: 'By', cell: (e) => e.metadata.actor },
  ];
  return (
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">Events</h2>
      <p class="hint">
        The organization's events, oldest first. Narrow them down, then pick a stream to see its history.
      </p>
      <EventFilterForm
        onApply={(next) => {
          setFilters(next);
          cursor.restart();
        }}
      />
      <ErrorNote error={events.error} />
      {events.loading && !events.data ? <Loading what="the events" /> : null}
      {events.data && !events.error && (
        <>
          <Table
            caption="The organization's events, oldest first"
            columns={columns}
            rows={events.data.data}
            rowKey={(e) => e.event_id}
            empty="No event matches."
          />
          <CursorPager cursor={cursor} page={events.data} label="Pages of the events" />
        </>
      )}
    </section>
  );
}

function EventFilterForm(props: { onApply: (filters: EventFilters) => void }) {
  const [type, setType] = useState('');
  const [actor, setActor] = useState('');
  const [requestId, setRequestId] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const submit = () =>
    props.onApply({
      type: type.trim() || undefined,
      actor: actor.trim() || undefined,
      request_id: requestId.trim() || undefined,
      start_time: instant(start),
      end_time: instant(end),
    });
  return (
    <Form label="Filter the events" onSubmit={submit}>
      <Field label="Event types" hint="Comma-separated">
        <input name="type" value={type} onInput={(e) => setType(e.currentTarget.value)} />
      </Field>
      <Field label="Actor">
        <input name="actor" value={actor} onInput={(e) => setActor(e.currentTarget.value)} />
      </Field>
      <Field label="Request id">
        <input name="request_id" value={requestId} onInput={(e) => setRequestId(e.currentTarget.value)} />
      </Field>
      <Field label="Recorded from">
        <input type="datetime-local" name="start_time" value={start} onInput={(e) => setStart(e.currentTarget.value)} />
      </Field>
      <Field label="Recorded until">
        <input type="datetime-local" name="end_time" value={end} onInput={(e) => setEnd(e.currentTarget.value)} />
      </Field>
      <button type="submit">Filter</button>
    </Form>
  );
}
