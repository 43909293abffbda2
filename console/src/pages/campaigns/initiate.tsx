/**
 * Starting calls and chats for a campaign's customers: the agent, disposition and template chosen from
 * the organization's lists, and the API's filters (spec 4.11) as fields. The answer's counts are shown,
 * with its per-batch errors; when no customer got one (500, 404) the API's message says why.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../../client/api';
import { ChoiceSelect } from '../../components/choice-select';
import { Tally } from '../../components/tally';
import { ErrorNote, Field, Form } from '../../components/ui';
import { useAction } from '../../components/use-load';
import { PAYMENT_STATUSES } from './model';

type Started = {
  success: boolean;
  message: string;
  results?: {
    totalMatched: number;
    customersSelected: number;
    initiated: number;
    failed: number;
    batchesProcessed: number;
    errors: { batch: number; error: string; reason: string; affectedCustomers: number }[];
  };
};

type Filters = { paymentStatuses: string[]; languages: string; ids: string; excludeIds: string; limit: string };

const NO_FILTERS: Filters = { paymentStatuses: [], languages: '', ids: '', excludeIds: '', limit: '' };

const listOf = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** The request's `filters` and `limit`, leaving out what is not set (no filter: every customer). */
function selectionOf(f: Filters) {
  const filters = {
    ...(f.paymentStatuses.length > 0 && { payment_status: f.paymentStatuses }),
    ...(listOf(f.languages).length > 0 && { language: listOf(f.languages) }),
    ...(listOf(f.ids).length > 0 && { ids: listOf(f.ids) }),
    ...(listOf(f.excludeIds).length > 0 && { exclude_ids: listOf(f.excludeIds) }),
  };
  return {
    ...(Object.keys(filters).length > 0 && { filters }),
    ...(f.limit && { limit: Number(f.limit) }),
  };
}

/** A start request; a refusal that carries the counts (none started) is shown as an answer too. */
async function start(path: string, body: unknown): Promise<Started> {
  try {
    return await api<Started>('POST', path, body);
  } catch (e) {
    const answer = e instanceof ApiError ? (e.body as Started | undefined) : undefined;
    if (answer?.results) return answer;
    throw e;
  }
}

/**
 * A card that starts calls or chats: the choices its request needs (the children), the selection of
 * customers, and what the API answered.
 */
function StartCard(props: {
  what: 'call' | 'chat';
  title: string;
  collection: boolean;
  start: (selection: ReturnType<typeof selectionOf>) => Promise<Started>;
  children: ComponentChildren;
}) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [answer, setAnswer] = useState<Started | undefined>(undefined);
  const run = useAction(async () => {
    setAnswer(undefined);
    setAnswer(await props.start(selectionOf(filters)));
  });
  return (
    <div class="card">
      <h3>{props.title}</h3>
      <Form label={`Start ${props.what}s`} onSubmit={() => void run.run()}>
        {props.children}
        <SelectionFields value={filters} onChange={setFilters} collection={props.collection} />
        <ErrorNote error={run.error} />
        <button type="submit" disabled={run.busy}>
          {run.busy ? 'Starting…' : `Start ${props.what}s`}
        </button>
      </Form>
      {answer && <StartedReport answer={answer} what={props.what} />}
    </div>
  );
}

/**
 * The agent picks one of a group's dispositions from the conversation: the campaign's group is
 * preselected, and a call started with none chosen takes it too (the API's default).
 */
export function InitiateCalls(props: {
  campaignId: string;
  collection: boolean;
  agentId?: string | null;
  dispositionGroupId?: string | null;
}) {
  const [agentId, setAgentId] = useState(props.agentId ?? '');
  const [dispositionId, setDispositionId] = useState(props.dispositionGroupId ?? '');
  return (
    <StartCard
      what="call"
      title="Calls"
      collection={props.collection}
      start={(selection) =>
        start(`/initiate/${props.campaignId}/calls`, {
          agentId,
          ...(dispositionId && { dispositionId }),
          ...selection,
        })
      }
    >
      <ChoiceSelect label="Agent" path="/agents" name="agentId" required value={agentId} onChange={setAgentId} />
      <ChoiceSelect
        label="Disposition group"
        path="/dispositions/groups/list"
        name="dispositionId"
        none="The campaign's group"
        value={dispositionId}
        onChange={setDispositionId}
      />
    </StartCard>
  );
}

export function InitiateChats(props: { campaignId: string; collection: boolean }) {
  const [templateId, setTemplateId] = useState('');
  const [agentId, setAgentId] = useState('');
  const [dispositionId, setDispositionId] = useState('');
  // The conversation settings go together or not at all: the API wants both or neither.
  const conversation = agentId || dispositionId ? { conversationSettings: { agentId, dispositionId } } : {};
  return (
    <StartCard
      what="chat"
      title="Chats"
      collection={props.collection}
      start={(selection) => start(`/initiate/${props.campaignId}/chat`, { templateId, ...conversation, ...selection })}
    >
      <ChoiceSelect
        label="Template"
        path="/chat/templates"
        name="templateId"
        required
        value={templateId}
        onChange={setTemplateId}
      />
      <ChoiceSelect
        label="Chat agent"
        path="/agents"
        name="chatAgentId"
        none="None"
        hint="To carry on the conversation; needs a disposition too"
        value={agentId}
        onChange={setAgentId}
      />
      <ChoiceSelect
        label="Chat disposition"
        path="/dispositions"
        name="chatDispositionId"
        none="None"
        value={dispositionId}
        onChange={setDispositionId}
      />
    </StartCard>
  );
}

function SelectionFields(props: { value: Filters; onChange: (f: Filters) => void; collection: boolean }) {
  const f = props.value;
  const set = (field: 'languages' | 'ids' | 'excludeIds' | 'limit') => (e: { currentTarget: { value: string } }) =>
    props.onChange({ ...f, [field]: e.currentTarget.value });
  const toggle = (status: string, on: boolean) =>
    props.onChange({
      ...f,
      paymentStatuses: on ? [...f.paymentStatuses, status] : f.paymentStatuses.filter((s) => s !== status),
    });
  return (
    <fieldset class="selection">
      <legend>Which customers (all when nothing is set)</legend>
      {props.collection && (
        <div class="checks" role="group" aria-label="Payment status">
          <span class="field-label">Payment status</span>
          {PAYMENT_STATUSES.map((s) => (
            <label key={s} class="check">
              <input
                type="checkbox"
                name="payment_status"
                value={s}
                checked={f.paymentStatuses.includes(s)}
                onChange={(e) => toggle(s, e.currentTarget.checked)}
              />
              {s}
            </label>
          ))}
        </div>
      )}
      <Field label="Languages" hint="Separated by commas: english, hindi…">
        <input name="language" value={f.languages} onInput={set('languages')} />
      </Field>
      <Field label="Only these ids" hint="Separated by commas">
        <input name="ids" value={f.ids} onInput={set('ids')} />
      </Field>
      <Field label="Leave out these ids" hint="Separated by commas">
        <input name="exclude_ids" value={f.excludeIds} onInput={set('excludeIds')} />
      </Field>
      <Field label="At most">
        <input type="number" name="limit" min={1} step={1} value={f.limit} onInput={set('limit')} />
      </Field>
    </fieldset>
  );
}

function StartedReport(props: { answer: Started; what: 'call' | 'chat' }) {
  const { answer } = props;
  const r = answer.results;
  return (
    <Tally
      label={`What starting the ${props.what}s did`}
      class="started"
      message={answer.message}
      success={answer.success}
      done={r?.initiated ?? 0}
      counts={
        r && [
          ['Matched', r.totalMatched],
          ['Selected', r.customersSelected],
          ['Started', r.initiated],
          ['Failed', r.failed],
        ]
      }
      problems={r?.errors.map((e) => `Batch ${e.batch}: ${e.error} (${e.affectedCustomers} customers)`)}
    />
  );
}
