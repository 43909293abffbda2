/**
 * Workflows: the steps run for each customer added with `useWorkflow` (docs/workflows.md). List and
 * search them, create and change them with their steps edited as a list, delete them, and follow a
 * workflow's runs. The API checks the steps (an outcome awaited before any contact, a target naming no
 * step...) and the page shows its findings beside the form.
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import {
  DeleteButton,
  EditButton,
  EditorCard,
  ListView,
  Notice,
  RowActions,
  SearchBar,
  SectionHeader,
  SelectField,
  loadAll,
  usePagedList,
  when,
  type Editing,
} from '../components/crud';
import { Field, Page, type Column } from '../components/ui';
import { useAction, useLoad } from '../components/use-load';
import {
  StepsEditor,
  draftsOf,
  emptyStep,
  stepSummary,
  stepsOf,
  type Choices,
  type Option,
  type Step,
} from './workflow-steps';
import './settings.css';

type Workflow = { id: string; name: string; steps: Step[]; createdAt: string; updatedAt: string };

type Run = {
  runId: string;
  customerKey: string;
  loan_id?: string;
  lead_id?: string;
  campaignId: string;
  status: 'running' | 'completed' | 'failed';
  currentStep: number | null;
  failureReason: string | null;
  history: {
    index: number;
    visit: number;
    type: string;
    startedAt: string;
    completedAt: string | null;
    outcome: Record<string, unknown> | null;
  }[];
  startedAt: string;
  endedAt: string | null;
};

export default function WorkflowsPage() {
  const [search, setSearch] = useState('');
  const list = usePagedList<Workflow>('/workflows', { search });
  const [editing, setEditing] = useState<Editing<Workflow>>(null);
  const [runsOf, setRunsOf] = useState<Workflow | null>(null);
  const [notice, setNotice] = useState('');
  const changed = (text: string) => {
    setNotice(text);
    list.reload();
  };
  const columns: Column<Workflow>[] = [
    { title: 'Name', cell: (w) => w.name },
    {
      title: 'Steps',
      cell: (w) => (
        <ol class="step-summary">
          {w.steps.map((step, i) => (
            <li key={i}>{stepSummary(step)}</li>
          ))}
        </ol>
      ),
    },
    { title: 'Updated', cell: (w) => when(w.updatedAt), class: 'wide-only' },
    {
      title: 'Actions',
      cell: (w) => (
        <RowActions>
          <EditButton what={w.name} onEdit={() => setEditing({ mode: 'edit', item: w })} />
          <EditButton what={w.name} label="Runs" onEdit={() => setRunsOf(w)} />
          <DeleteButton
            what={w.name}
            consequence="Runs already started finish; no new run starts. Its history is kept."
            onDelete={() => api('DELETE', `/workflows/${w.id}`)}
            onDeleted={() => {
              if (runsOf?.id === w.id) setRunsOf(null);
              changed(`Workflow “${w.name}” deleted.`);
            }}
          />
        </RowActions>
      ),
    },
  ];
  return (
    <Page
      title="Workflows"
      actions={
        <button type="button" onClick={() => setEditing({ mode: 'create' })}>
          New workflow
        </button>
      }
    >
      <div class="settings-section">
        {editing && (
          <WorkflowEditor
            key={editing.mode === 'edit' ? editing.item.id : 'new'}
            editing={editing}
            onClose={() => setEditing(null)}
            onSaved={(saved) => {
              setEditing(null);
              changed(`Workflow “${saved.name}” saved.`);
            }}
          />
        )}
        {notice && <Notice>{notice}</Notice>}
        <SearchBar label="Search workflows" onSearch={setSearch} />
        <ListView
          list={list}
          caption="Workflows"
          columns={columns}
          rowKey={(w) => w.id}
          empty={search ? `No workflow matches “${search}”.` : 'No workflows yet.'}
        />
      </div>
      {runsOf && <Runs key={runsOf.id} workflow={runsOf} onClose={() => setRunsOf(null)} />}
    </Page>
  );
}

type Named = { id: string; name: string };

/** A list of the organization's things as choices: loaded, loading (undefined), or its error. */
function useOptions(load: () => Promise<Option[]>): Option[] | Error | undefined {
  const loaded = useLoad(load, []);
  return loaded.error ?? loaded.data;
}

const optionsOf = (items: Named[], group?: string): Option[] =>
  items.map((item) => ({ value: item.id, label: item.name, ...(group && { group }) }));

/** The organization's agents, dispositions (and groups) and chat templates, for the steps to name. */
function useChoices(): Choices {
  return {
    agents: useOptions(async () => optionsOf(await loadAll<Named>('/agents'))),
    dispositions: useOptions(async () => {
      const [single, groups] = await Promise.all([
        loadAll<Named>('/dispositions'),
        loadAll<Named>('/dispositions/groups/list'),
      ]);
      return [...optionsOf(single, 'Dispositions'), ...optionsOf(groups, 'Groups')];
    }),
    templates: useOptions(async () => optionsOf(await loadAll<Named>('/chat/templates'))),
  };
}

function WorkflowEditor(props: {
  editing: NonNullable<Editing<Workflow>>;
  onSaved: (saved: Workflow) => void;
  onClose: () => void;
}) {
  const start = props.editing.mode === 'edit' ? props.editing.item : undefined;
  const [name, setName] = useState(start?.name ?? '');
  const [drafts, setDrafts] = useState(() => (start ? draftsOf(start.steps) : [emptyStep('place_call')]));
  const choices = useChoices();
  const save = useAction(async () => {
    const body = { name, steps: stepsOf(drafts) };
    const answer = start
      ? await api<{ data: Workflow }>('PUT', `/workflows/${start.id}`, body)
      : await api<{ data: Workflow }>('POST', '/workflows', body);
    props.onSaved(answer.data);
  });
  return (
    <EditorCard
      title={start ? `Edit workflow “${start.name}”` : 'New workflow'}
      submitLabel={start ? 'Save workflow' : 'Create workflow'}
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run()}
      onCancel={props.onClose}
    >
      <div class="wide">
        <Field label="Workflow name">
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
      </div>
      <StepsEditor drafts={drafts} choices={choices} onChange={setDrafts} />
    </EditorCard>
  );
}

const RUN_STATUSES = ['running', 'completed', 'failed'] as const;

function Runs(props: { workflow: Workflow; onClose: () => void }) {
  const [status, setStatus] = useState('');
  const list = usePagedList<Run>(`/workflows/${props.workflow.id}/runs`, { status });
  const columns: Column<Run>[] = [
    { title: 'Customer', cell: (r) => r.loan_id ?? r.lead_id ?? r.customerKey },
    { title: 'Status', cell: (r) => <span class={`status status-${r.status}`}>{r.status}</span> },
    {
      title: 'Current step',
      cell: (r) => (r.currentStep === null ? '—' : `Step ${r.currentStep + 1}`),
    },
    { title: 'Started', cell: (r) => when(r.startedAt), class: 'wide-only' },
    { title: 'Ended', cell: (r) => when(r.endedAt), class: 'wide-only' },
    { title: 'Steps taken', cell: (r) => <History run={r} /> },
  ];
  return (
    <section class="settings-section card" aria-labelledby="runs-heading">
      <SectionHeader id="runs-heading" title={`Runs of “${props.workflow.name}”`}>
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh runs
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Close runs
        </button>
      </SectionHeader>
      <p class="api-note">Runs start when customers are added with “use workflow”; oldest first.</p>
      <div class="form">
        <SelectField label="Run status" value={status} onChange={setStatus}>
          <option value="">Any</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
      </div>
      <ListView
        list={list}
        caption={`Runs of ${props.workflow.name}`}
        columns={columns}
        rowKey={(r) => r.runId}
        empty={status ? `No ${status} runs.` : 'This workflow has not run yet.'}
      />
    </section>
  );
}

function History(props: { run: Run }) {
  const { run } = props;
  return (
    <details>
      <summary>
        {run.history.length} step{run.history.length === 1 ? '' : 's'}
      </summary>
      {run.failureReason && <p class="error">{run.failureReason}</p>}
      <ol class="step-summary">
        {run.history.map((h) => (
          <li key={h.visit}>
            Step {h.index + 1} ({h.type}): {h.outcome ? outcomeText(h.outcome) : 'in progress'}
          </li>
        ))}
      </ol>
    </details>
  );
}

function outcomeText(outcome: Record<string, unknown>): string {
  return Object.entries(outcome)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(', ');
}
