/**
 * Workflows: the steps run for each customer added with `useWorkflow` (docs/workflows.md). List and
 * search them, create and change them with their steps edited as a list, delete them, and follow a
 * workflow's runs. The API checks the steps (an outcome awaited before any contact, a target naming no
 * step...) and the page shows its findings beside the form.
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import {
  EditButton,
  EditableListView,
  ItemEditor,
  ListView,
  SectionHeader,
  loadAll,
  startOf,
  useEditableList,
  usePagedList,
  when,
  type EditorProps,
  CreateButton,
  ItemActions,
} from '../components/crud';
import { SelectField } from '../components/select-field';
import { Field, Page, type Column } from '../components/ui';
import { useLoad } from '../components/use-load';
import { StepsEditor, draftsOf, emptyStep, stepSummary, stepsOf, type Choices, type Step } from './workflow-steps';
import type { Option } from '../components/select-field';
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
  const crud = useEditableList<Workflow>('/workflows', (w) => w.id);
  const [runsOf, setRunsOf] = useState<Workflow | null>(null);
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
        <ItemActions
          crud={crud}
          item={w}
          what={w.name}
          consequence="Runs already started finish; no new run starts. Its history is kept."
          onDelete={() => api('DELETE', `/workflows/${w.id}`)}
          deleted={`Workflow “${w.name}” deleted.`}
          onDeleted={() => runsOf?.id === w.id && setRunsOf(null)}
        >
          <EditButton what={w.name} label="Runs" onEdit={() => setRunsOf(w)} />
        </ItemActions>
      ),
    },
  ];
  return (
    <Page title="Workflows" actions={<CreateButton crud={crud}>New workflow</CreateButton>}>
      <div class="settings-section">
        <EditableListView
          crud={crud}
          editor={(editor) => <WorkflowEditor {...editor} />}
          searchLabel="Search workflows"
          noun="workflow"
          caption="Workflows"
          columns={columns}
          empty="No workflows yet."
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

const namedOptions = (items: Named[], group?: string): Option[] =>
  items.map((item) => ({ value: item.id, label: item.name, ...(group && { group }) }));

/** The organization's agents, dispositions (and groups) and chat templates, for the steps to name. */
function useChoices(): Choices {
  return {
    agents: useOptions(async () => namedOptions(await loadAll<Named>('/agents'))),
    dispositions: useOptions(async () => {
      const [single, groups] = await Promise.all([
        loadAll<Named>('/dispositions'),
        loadAll<Named>('/dispositions/groups/list'),
      ]);
      return [...namedOptions(single, 'Dispositions'), ...namedOptions(groups, 'Groups')];
    }),
    templates: useOptions(async () => namedOptions(await loadAll<Named>('/chat/templates'))),
  };
}

function WorkflowEditor(props: EditorProps<Workflow>) {
  const start = startOf(props.editing);
  const [name, setName] = useState(start?.name ?? '');
  const [drafts, setDrafts] = useState(() => (start ? draftsOf(start.steps) : [emptyStep('place_call')]));
  const choices = useChoices();
  return (
    <ItemEditor {...props} noun="workflow" path="/workflows" body={() => ({ name, steps: stepsOf(drafts) })}>
      <div class="wide">
        <Field label="Workflow name">
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
      </div>
      <StepsEditor drafts={drafts} choices={choices} onChange={setDrafts} />
    </ItemEditor>
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
        <SelectField label="Run status" value={status} onChange={setStatus} none="Any" options={RUN_STATUSES} />
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
