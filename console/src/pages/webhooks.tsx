/**
 * The organization's outbound webhook (docs/webhooks.md): its URL, secret and whether it is on; and its
 * deliveries, each with its attempts and the payload sent. The secret is shown in full once, in the
 * answer of the request that set it; the API masks it everywhere else.
 */
import { useState } from 'preact/hooks';
import { api, ApiError } from '../client/api';
import {
  EditButton,
  EditorCard,
  ListView,
  Notice,
  RowActions,
  SectionHeader,
  usePagedList,
  when,
} from '../components/crud';
import { DeleteButton } from '../components/delete-button';
import { SelectField } from '../components/select-field';
import { ErrorNote, Field, Loading, Page, Table, type Column } from '../components/ui';
import { useAction, useLoad } from '../components/use-load';
import './settings.css';

type Settings = { url: string; enabled: boolean; secret: string; createdAt: string; updatedAt: string };

type Delivery = {
  id: string;
  event: string;
  subject: { type: string; id: string };
  url: string;
  status: 'pending' | 'delivered' | 'abandoned';
  attemptCount: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
  reason: string | null;
  createdAt: string;
  finishedAt: string | null;
};

type Attempt = {
  number: number;
  startedAt: string;
  finishedAt: string | null;
  outcome: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
};

type DeliveryDetail = Delivery & { attempts: Attempt[]; payload: unknown };

/** The settings, or null when none are set (the API answers 404). */
async function loadSettings(): Promise<Settings | null> {
  try {
    return (await api<{ data: Settings }>('GET', '/webhooks')).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export default function WebhooksPage() {
  return (
    <Page title="Webhooks">
      <SettingsSection />
      <Deliveries />
    </Page>
  );
}

function SettingsSection() {
  const settings = useLoad(loadSettings, []);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<{ text: string; secret?: string } | null>(null);
  const current = settings.data;
  return (
    <section class="settings-section" aria-labelledby="settings-heading">
      <SectionHeader id="settings-heading" title="Settings">
        {current !== undefined && !editing && (
          <RowActions>
            <EditButton
              what="webhook"
              label={current ? 'Change' : 'Set up'}
              onEdit={() => {
                setNotice(null);
                setEditing(true);
              }}
            />
            {current && (
              <DeleteButton
                what="webhook"
                label="Remove"
                consequence="Deliveries stop: pending ones are abandoned."
                onDelete={() => api('DELETE', '/webhooks')}
                onDeleted={() => {
                  setNotice({ text: 'Webhook removed.' });
                  settings.reload();
                }}
              />
            )}
          </RowActions>
        )}
      </SectionHeader>
      <ErrorNote error={settings.error} />
      {current === undefined && !settings.error && <Loading what="the webhook" />}
      {editing && current !== undefined && (
        <SettingsEditor
          current={current}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            setNotice({ text: 'Webhook saved.', secret: saved.secret });
            settings.reload();
          }}
        />
      )}
      {notice && (
        <Notice>
          {notice.text}
          {notice.secret && !notice.secret.startsWith('*') && (
            <>
              {' '}
              Its signing secret, shown in full this once: <span class="secret">{notice.secret}</span>
            </>
          )}
        </Notice>
      )}
      {current === null && <p class="empty">No webhook is set: nothing is sent.</p>}
      {current && (
        <dl class="facts">
          <dt>URL</dt>
          <dd class="mono">{current.url}</dd>
          <dt>Deliveries</dt>
          <dd>{current.enabled ? 'On' : 'Off'}</dd>
          <dt>Secret</dt>
          <dd class="mono">{current.secret}</dd>
          <dt>Events</dt>
          <dd>call.ended and chat.ended: every call and chat that ends while deliveries are on</dd>
          <dt>Updated</dt>
          <dd>{when(current.updatedAt)}</dd>
        </dl>
      )}
      <p class="api-note">The API sends every event to the one URL; it has no choice of events per webhook.</p>
    </section>
  );
}

function SettingsEditor(props: { current: Settings | null; onSaved: (saved: Settings) => void; onClose: () => void }) {
  const [url, setUrl] = useState(props.current?.url ?? '');
  const [secret, setSecret] = useState('');
  const [enabled, setEnabled] = useState(props.current?.enabled ?? true);
  const save = useAction(async () => {
    const body = { url, enabled, ...(secret !== '' && { secret }) };
    props.onSaved((await api<{ data: Settings }>('PUT', '/webhooks', body)).data);
  });
  return (
    <EditorCard
      title={props.current ? 'Change the webhook' : 'Set up the webhook'}
      submitLabel="Save webhook"
      save={save}
      onCancel={props.onClose}
    >
      <div class="wide">
        <Field label="URL" hint="An absolute https URL; each ended call or chat is POSTed to it.">
          <input type="url" required maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </Field>
      </div>
      <Field
        label="Secret"
        hint={
          props.current
            ? 'Leave empty to keep the current one; a new one (16 to 256 characters, no spaces) rotates it.'
            : 'Leave empty to have one generated; or 16 to 256 characters, no spaces.'
        }
      >
        <input autoComplete="off" spellcheck={false} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
      </Field>
      <label class="field check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <span class="field-label">Deliveries on</span>
      </label>
    </EditorCard>
  );
}

const DELIVERY_STATUSES = ['pending', 'delivered', 'abandoned'] as const;

function Deliveries() {
  const [status, setStatus] = useState('');
  const list = usePagedList<Delivery>('/webhooks/deliveries', { status });
  const [shown, setShown] = useState<string | null>(null);
  const columns: Column<Delivery>[] = [
    { title: 'Event', cell: (d) => d.event },
    { title: 'Subject', cell: (d) => <span class="mono">{d.subject.id}</span>, class: 'wide-only' },
    { title: 'Status', cell: (d) => <span class={`status status-${d.status}`}>{d.status}</span> },
    { title: 'Attempts', cell: (d) => d.attemptCount },
    { title: 'Last answer', cell: (d) => d.lastStatusCode ?? '—', class: 'wide-only' },
    { title: 'Next attempt', cell: (d) => when(d.nextAttemptAt), class: 'wide-only' },
    { title: 'Created', cell: (d) => when(d.createdAt), class: 'wide-only' },
    {
      title: 'Details',
      cell: (d) => <EditButton what={`${d.event} ${d.subject.id}`} label="Attempts" onEdit={() => setShown(d.id)} />,
    },
  ];
  return (
    <section class="settings-section" aria-labelledby="deliveries-heading">
      <SectionHeader id="deliveries-heading" title="Deliveries">
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh deliveries
        </button>
      </SectionHeader>
      <div class="form">
        <SelectField
          label="Delivery status"
          value={status}
          onChange={setStatus}
          none="Any"
          options={DELIVERY_STATUSES}
        />
      </div>
      <ListView
        list={list}
        caption="Webhook deliveries"
        columns={columns}
        rowKey={(d) => d.id}
        empty={status ? `No ${status} deliveries.` : 'Nothing has been sent yet.'}
      />
      {shown && <DeliveryAttempts key={shown} id={shown} onClose={() => setShown(null)} />}
    </section>
  );
}

function DeliveryAttempts(props: { id: string; onClose: () => void }) {
  const delivery = useLoad(() => api<{ data: DeliveryDetail }>('GET', `/webhooks/deliveries/${props.id}`), [props.id]);
  const d = delivery.data?.data;
  const columns: Column<Attempt>[] = [
    { title: 'Attempt', cell: (a) => a.number },
    { title: 'Outcome', cell: (a) => a.outcome },
    { title: 'Answer', cell: (a) => a.statusCode ?? '—' },
    { title: 'Error', cell: (a) => a.error ?? '—' },
    { title: 'Started', cell: (a) => when(a.startedAt), class: 'wide-only' },
    { title: 'Took', cell: (a) => (a.durationMs === null ? '—' : `${a.durationMs} ms`), class: 'wide-only' },
  ];
  return (
    <section class="card" aria-labelledby="attempts-heading">
      <SectionHeader id="attempts-heading" title="Attempts of the delivery">
        <button type="button" class="secondary" onClick={props.onClose}>
          Close attempts
        </button>
      </SectionHeader>
      <ErrorNote error={delivery.error} />
      {!d && !delivery.error && <Loading what="the delivery" />}
      {d && (
        <>
          <dl class="facts">
            <dt>Event</dt>
            <dd>
              {d.event} of {d.subject.type} <span class="mono">{d.subject.id}</span>
            </dd>
            <dt>Status</dt>
            <dd>
              {d.status}
              {d.reason ? `: ${d.reason}` : ''}
            </dd>
            <dt>Sent to</dt>
            <dd class="mono">{d.url}</dd>
          </dl>
          <Table
            caption="Attempts"
            columns={columns}
            rows={d.attempts}
            rowKey={(a) => `${a.number}-${a.startedAt}`}
            empty="No attempt yet."
          />
          <details>
            <summary>Payload sent</summary>
            <pre class="payload">{JSON.stringify(d.payload, null, 2)}</pre>
          </details>
        </>
      )}
    </section>
  );
}
